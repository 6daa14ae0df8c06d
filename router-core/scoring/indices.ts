import type { TScoreName } from "../policy/names";
import type { TMetricSnapshot } from "../types";

/**
 * Raw metrics → bounded 0–100 indices where higher is always better (paper 4.8), so weighted
 * contributions add up without mixing units:
 *
 * - completion_rate_5m:      100 × completion rate (provider-attributable, see metrics/window.ts)
 * - error_rate_5m:           100 × (1 − provider-call failure rate)
 * - p95_latency_5m:          100 × best p95 / own p95, best = lowest p95 among candidates passing the gates
 * - p99_latency_5m:          same with p99
 * - cost_per_request:        100 × cheapest cost / own cost (0 cost → 100); the price-weighted ratio of seeds/003
 * - recent_incident_penalty: 100 / (1 + incidents in the window): one incident halves it, two leave a third
 * - confidence_from_sample:  100 × confidence (sqrt of samples / min_sample_size, capped at 1)
 *
 * Latency and cost are relative to the best candidate because no absolute "good" latency exists
 * across operations; the guardrails carry the absolute limits. When a metric is missing, or stale
 * under stale_policy safe_default, its index is SAFE_DEFAULT_INDEX (neither rewarded nor
 * excluded: a provider with no evidence ranks below one with good evidence and above one with bad)
 * and confidence is 0. Cost comes from the catalog, never from telemetry, so it is never defaulted.
 */
export const SAFE_DEFAULT_INDEX = 50;

export type TNormalization = { minP95: number; minP99: number; minCost: number };

export type TIndexSpec = {
  name: TScoreName;
  /** Whether the index comes from telemetry (and is defaulted when telemetry is missing or stale). */
  fromTelemetry: boolean;
  raw(m: TMetricSnapshot | undefined, cost: number): number | null;
  index(raw: number, norm: TNormalization): number;
  /** Index used when telemetry is missing or stale under safe_default. */
  safeDefault: number;
};

const ratioToBest = (best: number, own: number): number => {
  if (own <= 0) return 100;
  const r = (100 * best) / own;
  return r > 100 ? 100 : r < 0 ? 0 : r;
};

const clampIndex = (x: number): number => (x > 100 ? 100 : x < 0 ? 0 : x);

export const INDEX_SPECS: Readonly<Record<TScoreName, TIndexSpec>> = {
  completion_rate_5m: {
    name: "completion_rate_5m",
    fromTelemetry: true,
    raw: (m) => m?.completionRate ?? null,
    index: (r) => clampIndex(100 * r),
    safeDefault: SAFE_DEFAULT_INDEX,
  },
  error_rate_5m: {
    name: "error_rate_5m",
    fromTelemetry: true,
    raw: (m) => m?.errorRate ?? null,
    index: (r) => clampIndex(100 * (1 - r)),
    safeDefault: SAFE_DEFAULT_INDEX,
  },
  p95_latency_5m: {
    name: "p95_latency_5m",
    fromTelemetry: true,
    raw: (m) => m?.p95Ms ?? null,
    index: (r, n) => ratioToBest(n.minP95, r),
    safeDefault: SAFE_DEFAULT_INDEX,
  },
  p99_latency_5m: {
    name: "p99_latency_5m",
    fromTelemetry: true,
    raw: (m) => m?.p99Ms ?? null,
    index: (r, n) => ratioToBest(n.minP99, r),
    safeDefault: SAFE_DEFAULT_INDEX,
  },
  cost_per_request: {
    name: "cost_per_request",
    fromTelemetry: false,
    raw: (_m, cost) => cost,
    index: (r, n) => (r <= 0 ? 100 : ratioToBest(n.minCost, r)),
    safeDefault: SAFE_DEFAULT_INDEX,
  },
  recent_incident_penalty: {
    name: "recent_incident_penalty",
    fromTelemetry: true,
    raw: (m) => (m === undefined || m.updatedAt === null ? null : m.recentIncidents),
    index: (r) => 100 / (1 + (r > 0 ? r : 0)),
    safeDefault: SAFE_DEFAULT_INDEX,
  },
  confidence_from_sample: {
    name: "confidence_from_sample",
    fromTelemetry: true,
    raw: (m) => m?.confidence ?? null,
    index: (r) => clampIndex(100 * r),
    safeDefault: 0,
  },
};
