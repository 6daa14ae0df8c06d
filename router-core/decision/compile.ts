import { ALWAYS_ON_GATES, GATES, PIN_GATES, REQUEST_INDEPENDENT_GATES } from "../gates/registry";
import { constantOutcome, staticGateInput, type TGateFn, type TGateOutcome } from "../gates/gate";
import type { TGateName } from "../policy/names";
import type { TFactorList } from "../policy/schema";
import { INDEX_SPECS } from "../scoring/indices";
import type { TWeightedSpec } from "../scoring/contributions";
import { STRATEGIES } from "../strategies/registry";
import type { RoutingStrategy } from "../strategies/strategy";
import type { TProviderInfo } from "../types";
import type { TCandidateLookups } from "./evaluation";
import type { TScoreName } from "../policy/names";

type TNamedGate = { name: TGateName; fn: TGateFn };

/** What a (catalogue, region) pair fixes for every request to it. */
export type TRegionPlan = {
  /** Candidates in static priority order. */
  candidates: readonly TProviderInfo[];
  /** The region rule's required compliance tags (the request may add more). */
  ruleCompliance: readonly string[];
  regionAllowList: readonly string[] | null;
  /**
   * Per candidate, index-aligned with the compiled gates: the outcome of each request-independent
   * gate, null for gates that run per request.
   */
  fixed: readonly (readonly (TGateOutcome | null)[])[];
  /** The last routing state's per-candidate lookups (lookups.ts), reused while its maps are the same objects. */
  lookups: TCandidateLookups | null;
};

/**
 * Per-policy structures built once (the policy is validated by parseFactorList before it gets
 * here), so the per-decision path does no name lookups, no zod and no closure creation.
 */
export type TCompiledPolicy = {
  policy: TFactorList;
  gates: readonly TNamedGate[];
  /** Position of compliance_allowed in `gates`, -1 when the policy does not list it. */
  complianceGate: number;
  /** Pin gates not already in `gates`, evaluated only for a pinned provider. */
  extraPinGates: readonly TNamedGate[];
  scores: readonly TWeightedSpec[];
  strategy: RoutingStrategy;
  maxMetricAgeMs: number;
  /** Candidate order for a catalog: policy.providers first (priority order), cached per catalog array. */
  order(catalog: readonly TProviderInfo[]): readonly TProviderInfo[];
  /** The region plan for a catalog, cached per catalog array and region. */
  plan(catalog: readonly TProviderInfo[], region: string): TRegionPlan;
};

/**
 * Regions come from requests; past this many per catalogue the cache starts over rather than
 * grow without bound (the data plane only lets known regions through, replay may not).
 */
const MAX_CACHED_REGIONS = 256;

const cache = new WeakMap<TFactorList, TCompiledPolicy>();

export function compilePolicy(policy: TFactorList): TCompiledPolicy {
  const hit = cache.get(policy);
  if (hit) return hit;
  const names = [...new Set<TGateName>([...ALWAYS_ON_GATES, ...policy.gates])];
  const gates = names.map((name) => ({ name, fn: GATES[name] }));
  const extraPinGates = PIN_GATES.filter((g) => !names.includes(g)).map((name) => ({ name, fn: GATES[name] }));
  const scores = Object.entries(policy.scores).map(([name, s]) => ({
    spec: INDEX_SPECS[name as TScoreName],
    weight: s.weight,
    slo: sloFor(policy, name, s.slo_ms),
  }));
  const orders = new WeakMap<readonly TProviderInfo[], readonly TProviderInfo[]>();
  const plans = new WeakMap<readonly TProviderInfo[], Map<string, TRegionPlan>>();
  const compiled: TCompiledPolicy = {
    policy,
    gates,
    complianceGate: names.indexOf("compliance_allowed"),
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
    plan(catalog, region) {
      let byRegion = plans.get(catalog);
      if (byRegion === undefined) {
        byRegion = new Map();
        plans.set(catalog, byRegion);
      }
      let plan = byRegion.get(region);
      if (plan === undefined) {
        if (byRegion.size >= MAX_CACHED_REGIONS) byRegion.clear();
        plan = planRegion(compiled, compiled.order(catalog), region);
        byRegion.set(region, plan);
      }
      return plan;
    },
  };
  cache.set(policy, compiled);
  return compiled;
}

/** A latency score's absolute objective: its own slo_ms, or for p95 the guardrail the factor list already states. */
function sloFor(policy: TFactorList, name: string, slo: number | undefined): number | null {
  if (slo !== undefined) return slo;
  return name === "p95_latency_5m" ? (policy.guardrails.max_p95_ms ?? null) : null;
}

function planRegion(compiled: TCompiledPolicy, candidates: readonly TProviderInfo[], region: string): TRegionPlan {
  const rule = compiled.policy.regions[region];
  const ruleCompliance = rule?.required_compliance ?? [];
  const regionAllowList = rule?.providers ?? null;
  const fixed = candidates.map((provider) => {
    const input = staticGateInput(provider, region, ruleCompliance, regionAllowList, {
      maxMetricAgeSeconds: compiled.policy.max_metric_age_seconds,
      stalePolicy: compiled.policy.stale_policy,
    });
    // Constants: every decision to this region shares them, whatever the time.
    return compiled.gates.map((g) => (REQUEST_INDEPENDENT_GATES.includes(g.name) ? constantOutcome(g.fn(input)) : null));
  });
  return { candidates, ruleCompliance, regionAllowList, fixed, lookups: null };
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
