import type { TFactorList, TProviderInfo } from "../../../router-core/index";
import { operationDenied, type TPrincipal } from "../../edge";
import { errorBody, type TErrorBody, type TErrorCode } from "../../http";
import type { RoutingState } from "../routing-state";
import type { TLocalDecision } from "./schema";

/** Policy versions remembered per operation, so a report made on the previous version still validates against it. */
const VERSIONS_KEPT = 16;

export type TLocalRefusal = { code: TErrorCode; error: TErrorBody["error"] };

/**
 * What a client may report as a decision it made itself: an operation its key may route, a
 * region the operation knows, and providers (selected and its failover order) that exist in the
 * catalogue, are in the operation's policy as of the version the client decided with, and serve
 * the region. A report is what spends a provider's quota and what outcomes may later name, so a
 * key for one operation must not be able to spend or poison another's providers through it.
 */
export function createLocalDecisionValidator(state: RoutingState) {
  const versions = new Map<string, Map<string, TFactorList>>();
  let catalogue: { list: readonly TProviderInfo[]; byKey: Map<string, TProviderInfo> } | null = null;
  const providerInfo = (key: string): TProviderInfo | undefined => {
    const list = state.providers();
    if (catalogue?.list !== list) catalogue = { list, byKey: new Map(list.map((p) => [p.key, p])) };
    return catalogue.byKey.get(key);
  };

  /** The policy the client names (when this instance has held it), else the active one. */
  function policyFor(operation: string, version: string | null | undefined): TFactorList | null {
    const active = state.policyFor(operation);
    if (!active) return null;
    let kept = versions.get(operation);
    if (!kept) versions.set(operation, (kept = new Map()));
    for (const [v, p] of [[active.version, active.policy] as const, [active.shadow?.policyVersion, active.shadow?.policy] as const]) {
      if (v === undefined || p === undefined || kept.get(v) === p) continue;
      kept.delete(v);
      kept.set(v, p);
      if (kept.size > VERSIONS_KEPT) kept.delete(kept.keys().next().value!);
    }
    return (version != null ? kept.get(version) : undefined) ?? active.policy;
  }

  /** Why `provider` may not serve (operation, region) under `policy`, or null when it may. */
  function providerRefusal(policy: TFactorList, operation: string, region: string, provider: string): string | null {
    const info = providerInfo(provider);
    if (!info) return `unknown provider "${provider}"`;
    if (policy.providers.length > 0 && !policy.providers.includes(provider)) return `provider "${provider}" does not serve ${operation}`;
    const rule = policy.regions[region];
    const serves = info.regions.includes("*") || info.regions.includes(region);
    if (!serves || (rule?.providers !== undefined && !rule.providers.includes(provider)))
      return `provider "${provider}" does not serve ${operation} in ${region}`;
    return null;
  }

  const refuse = (code: TErrorCode, path: string, message: string): TLocalRefusal => ({ code, error: errorBody(code, message, [{ path, message }]).error });

  /**
   * The refusal of item `index`, its field named by its path in the batch (`list`: the body's array);
   * null when it may be logged. `strictVersion`: a policy version this instance has not held is
   * refused rather than checked against the active one (a count report's versions become rollup keys).
   */
  return (
    d: Pick<TLocalDecision, "operation" | "region" | "selected" | "policyVersion" | "order">,
    index: number,
    principal: TPrincipal,
    list = "decisions",
    strictVersion = false,
  ): TLocalRefusal | null => {
    const at = `${list}.${index}`;
    if (operationDenied(principal, d.operation)) return refuse("forbidden", `${at}.operation`, `the key may not use ${d.operation}`);
    const policy = policyFor(d.operation, d.policyVersion);
    if (!policy) return refuse("unknown_operation", `${at}.operation`, `unknown operation "${d.operation}"`);
    if (strictVersion && d.policyVersion != null && !versions.get(d.operation)?.has(d.policyVersion))
      return refuse("invalid", `${at}.policyVersion`, `policy version "${d.policyVersion}" of ${d.operation} is not one this instance has held`);
    if (!state.knownRegions(d.operation).includes(d.region)) return refuse("invalid", `${at}.region`, `unknown region "${d.region}" for ${d.operation}`);
    const named: Array<[string, string]> = d.selected === null ? [] : [[`${at}.selected`, d.selected]];
    (d.order ?? []).forEach((p, i) => named.push([`${at}.order.${i}`, p]));
    for (const [path, provider] of named) {
      const why = providerRefusal(policy, d.operation, d.region, provider);
      if (why) return refuse("invalid", path, why);
    }
    return null;
  };
}
