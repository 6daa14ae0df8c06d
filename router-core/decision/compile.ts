import { ALWAYS_ON_GATES, GATES, PIN_GATES } from "../gates/registry";
import type { TGateFn } from "../gates/gate";
import type { TGateName } from "../policy/names";
import type { TFactorList } from "../policy/schema";
import { INDEX_SPECS } from "../scoring/indices";
import type { TWeightedSpec } from "../scoring/contributions";
import { STRATEGIES } from "../strategies/registry";
import type { RoutingStrategy } from "../strategies/strategy";
import type { TProviderInfo } from "../types";
import type { TScoreName } from "../policy/names";

type TNamedGate = { name: TGateName; fn: TGateFn };

/**
 * Per-policy structures built once (the policy is validated by parseFactorList before it gets
 * here), so the per-decision path does no name lookups, no zod and no closure creation.
 */
export type TCompiledPolicy = {
  policy: TFactorList;
  gates: readonly TNamedGate[];
  /** Pin gates not already in `gates`, evaluated only for a pinned provider. */
  extraPinGates: readonly TNamedGate[];
  scores: readonly TWeightedSpec[];
  strategy: RoutingStrategy;
  maxMetricAgeMs: number;
  /** Candidate order for a catalog: policy.providers first (priority order), cached per catalog array. */
  order(catalog: readonly TProviderInfo[]): readonly TProviderInfo[];
};

const cache = new WeakMap<TFactorList, TCompiledPolicy>();

export function compilePolicy(policy: TFactorList): TCompiledPolicy {
  const hit = cache.get(policy);
  if (hit) return hit;
  const names = [...new Set<TGateName>([...ALWAYS_ON_GATES, ...policy.gates])];
  const gates = names.map((name) => ({ name, fn: GATES[name] }));
  const extraPinGates = PIN_GATES.filter((g) => !names.includes(g)).map((name) => ({ name, fn: GATES[name] }));
  const scores = Object.entries(policy.scores).map(([name, s]) => ({ spec: INDEX_SPECS[name as TScoreName], weight: s.weight }));
  const orders = new WeakMap<readonly TProviderInfo[], readonly TProviderInfo[]>();
  const compiled: TCompiledPolicy = {
    policy,
    gates,
    extraPinGates,
    scores,
    strategy: STRATEGIES[policy.strategy],
    maxMetricAgeMs: policy.max_metric_age_seconds * 1000,
    order(catalog) {
      let ordered = orders.get(catalog);
      if (ordered === undefined) {
        ordered = orderCatalog(policy.providers, catalog);
        orders.set(catalog, ordered);
      }
      return ordered;
    },
  };
  cache.set(policy, compiled);
  return compiled;
}

/**
 * With a providers list in the factor list, only those providers are candidates, in that order:
 * the list is the operation's static priority order. Without one, the catalog's order is.
 */
function orderCatalog(priority: readonly string[], catalog: readonly TProviderInfo[]): readonly TProviderInfo[] {
  if (priority.length === 0) return catalog;
  const byKey = new Map(catalog.map((p) => [p.key, p]));
  const out: TProviderInfo[] = [];
  for (const key of priority) {
    const p = byKey.get(key);
    if (p) out.push(p);
  }
  return out;
}
