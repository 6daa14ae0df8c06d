import { createHash } from "node:crypto";
import type { TDecisionRow } from "../../dataplane";

/** A decision as a JSONEachRow line of the decision table (schema.ts); `at` in epoch milliseconds. */
export function clickHouseRow(r: TDecisionRow): Record<string, unknown> {
  return {
    id: r.id,
    at: r.createdAt,
    operation: r.operation,
    region: r.region,
    request_id: r.requestId,
    policy_version: r.policyVersion,
    shadow_version: r.shadowVersion,
    selected_provider: r.selectedProvider,
    reason_code: r.reasonCode,
    shadow_pick: r.shadowPick,
    shadow_agrees: r.shadowAgrees,
    score_margin: r.scoreMargin,
    stale: r.stale,
    metric_age_ms: r.metricAgeMs,
    fallback_action: r.fallbackAction,
    degraded: r.degraded,
    durability: r.durability,
    instance_id: r.instanceId,
    api_key_id: r.apiKeyId ?? null,
    offered_providers: r.offeredProviders ?? null,
    source: r.source ?? "server",
    record: r.body,
  };
}

/**
 * The batch's identity for insert_deduplication_token: the hash of its ids in order. The same
 * batch sent again (a retry after a lost answer, a spool segment replayed twice in the same
 * chunks) carries the same token and is dropped by ClickHouse.
 */
export function batchToken(rows: readonly { id: string }[]): string {
  const h = createHash("sha256");
  for (const r of rows) h.update(r.id);
  return h.digest("hex");
}
