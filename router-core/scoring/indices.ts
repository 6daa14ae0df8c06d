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

/**
 * The raw metric behind a score. One switch rather than a function per spec so the scoring loop
 * makes a direct call: a call through per-spec functions is megamorphic, the slowest kind of call.
 */
export function rawMetric(name: TScoreName, m: TMetricSnapshot | undefined, cost: number): number | null {
  switch (name) {
    case "completion_rate_5m":
      return m?.completionRate ?? null;
    case "error_rate_5m":
      return m?.errorRate ?? null;
    case "p95_latency_5m":
      return m?.p95Ms ?? null;
    case "p99_latency_5m":
      return m?.p99Ms ?? null;
    case "cost_per_request":
      return cost;
    case "recent_incident_penalty":
      return m === undefined || m.updatedAt === null ? null : m.recentIncidents;
    case "confidence_from_sample":
      return m?.confidence ?? null;
  }
}

/** The 0–100 index of a raw metric (formulas above). */
export function scoreIndex(name: TScoreName, r: number, n: TNormalization): number {
  switch (name) {
    case "completion_rate_5m":
    case "confidence_from_sample":
      return clampIndex(100 * r);
    case "error_rate_5m":
      return clampIndex(100 * (1 - r));
    case "p95_latency_5m":
      return ratioToBest(n.minP95, r);
    case "p99_latency_5m":
      return ratioToBest(n.minP99, r);
    case "cost_per_request":
      return r <= 0 ? 100 : ratioToBest(n.minCost, r);
    case "recent_incident_penalty":
      return 100 / (1 + (r > 0 ? r : 0));
  }
}

const spec = (name: TScoreName, fromTelemetry: boolean, safeDefault: number): TIndexSpec => ({
  name,
  fromTelemetry,
  raw: (m, cost) => rawMetric(name, m, cost),
  index: (r, n) => scoreIndex(name, r, n),
  safeDefault,
});

export const INDEX_SPECS: Readonly<Record<TScoreName, TIndexSpec>> = {
  completion_rate_5m: spec("completion_rate_5m", true, SAFE_DEFAULT_INDEX),
  error_rate_5m: spec("error_rate_5m", true, SAFE_DEFAULT_INDEX),
  p95_latency_5m: spec("p95_latency_5m", true, SAFE_DEFAULT_INDEX),
  p99_latency_5m: spec("p99_latency_5m", true, SAFE_DEFAULT_INDEX),
  // Cost comes from the catalog, never from telemetry.
  cost_per_request: spec("cost_per_request", false, SAFE_DEFAULT_INDEX),
  recent_incident_penalty: spec("recent_incident_penalty", true, SAFE_DEFAULT_INDEX),
  confidence_from_sample: spec("confidence_from_sample", true, 0),
};
