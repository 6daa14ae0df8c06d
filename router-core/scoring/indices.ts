import type { TScoreName } from "../policy/names";
import type { TMetricSnapshot } from "../types";

/**
 * Raw metrics → bounded 0–100 indices where higher is always better (the paper's section 4.8, docs/references.md), so weighted
 * contributions add up without mixing units:
 *
 * - completion_rate_5m:      100 × clamp(1 − L(1 − completion rate, n) / FAILURE_RATE_AT_ZERO, 0, 1)
 *                            (provider-attributable, see metrics/window.ts; n = sample count)
 * - error_rate_5m:           100 × clamp(1 − L(provider-call failure rate, n) / FAILURE_RATE_AT_ZERO, 0, 1)
 * - p95_latency_5m:          100 × best p95 / own p95, best = lowest p95 among candidates passing the gates
 * - p99_latency_5m:          same with p99
 * - cost_per_request:        100 × cheapest cost / own cost (0 cost → 100); the price-weighted ratio of the token-gateway article (docs/references.md)
 * - recent_incident_penalty: 100 / (1 + incidents in the window): one incident halves it, two leave a third
 * - confidence_from_sample:  100 × confidence (sqrt of samples / min_sample_size, capped at 1)
 *
 * The two rate indices are error-budget style. What matters operationally is the failure rate,
 * not the success rate: 99.5% → 85% completion is 30× the failures, yet as 100 × rate it cost
 * only 14.5 index points (6.5 score points at Listing 1's 0.45), less than a healthy probe-floor
 * challenger's latency and sample-confidence deficits, so a clearly degraded primary kept its
 * traffic. Here the index falls 33 points per percentage point of failure and reaches 0 at 3%
 * (6× a 0.5% baseline). L(f, n) is the one-sided 95% Wilson lower bound of the failure rate: only
 * failures sampling noise cannot explain cost points, which is what lets the scale be this
 * steep without turning noise into traffic moves. On 1,500 calls: 99.5% → 90.8, 99.3% → 85.9
 * (2.2 score points apart, inside the 3.5 hysteresis margin), 98.5% → 64.5, 85% → 0 (the whole
 * 0.45 weight); a probe-floor provider's one failure in 15 calls gives 50, not 0.
 *
 * Latency and cost are relative to the best candidate because no absolute "good" latency exists
 * across operations; the guardrails carry the absolute limits. When a metric is missing, or stale
 * under stale_policy safe_default, its index is SAFE_DEFAULT_INDEX (neither rewarded nor
 * excluded: a provider with no evidence ranks below one with good evidence and above one with bad)
 * and confidence is 0. Cost comes from the catalog, never from telemetry, so it is never defaulted.
 */
export const SAFE_DEFAULT_INDEX = 50;

/** Failure rate (its lower bound) at which a rate index reaches 0: 6× a typical 0.5% baseline. */
export const FAILURE_RATE_AT_ZERO = 0.03;

export type TNormalization = { minP95: number; minP99: number; minCost: number };

export type TIndexSpec = {
  name: TScoreName;
  /** Whether the index comes from telemetry (and is defaulted when telemetry is missing or stale). */
  fromTelemetry: boolean;
  raw(m: TMetricSnapshot | undefined, cost: number): number | null;
  /** `samples` is the window's sample count, for the rate indices' lower bound. */
  index(raw: number, norm: TNormalization, samples: number): number;
  /** Index used when telemetry is missing or stale under safe_default. */
  safeDefault: number;
  /** Whether the index depends on the normalisation (the best eligible value), not on the candidate's own metrics alone. */
  relative: boolean;
};

const ratioToBest = (best: number, own: number): number => {
  if (own <= 0) return 100;
  const r = (100 * best) / own;
  return r > 100 ? 100 : r < 0 ? 0 : r;
};

const clampIndex = (x: number): number => (x > 100 ? 100 : x < 0 ? 0 : x);
/** One-sided 95%: a failure rate counts only as far as sampling noise cannot explain it. */
const Z_LOWER = 1.6448536;

/**
 * Wilson lower confidence bound of a failure rate measured on n samples: the failure rate the
 * evidence proves. A thin window (a probe-floor provider's 15 calls, one failed) is not read as a
 * 6.7% failure rate, and a well-sampled primary's noise (0.5% ± 0.18% on 1,500 calls) moves its
 * index by a point, not by four; a real drop on many samples shows almost in full. One-sided 95%
 * unless z says otherwise.
 */
export function failureLowerBound(rate: number, n: number, z = Z_LOWER): number {
  if (!(n > 0) || rate <= 0) return 0;
  const z2n = (z * z) / n;
  const lower = (rate + z2n / 2 - z * Math.sqrt((rate * (1 - rate)) / n + z2n / (4 * n))) / (1 + z2n);
  return lower > 0 ? lower : 0;
}

const failureBudgetIndex = (failureRate: number, n: number): number => clampIndex(100 * (1 - failureLowerBound(failureRate, n) / FAILURE_RATE_AT_ZERO));

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
export function scoreIndex(name: TScoreName, r: number, n: TNormalization, samples: number): number {
  switch (name) {
    case "completion_rate_5m":
      return failureBudgetIndex(1 - r, samples);
    case "error_rate_5m":
      return failureBudgetIndex(r, samples);
    case "confidence_from_sample":
      return clampIndex(100 * r);
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

const RELATIVE: ReadonlySet<TScoreName> = new Set<TScoreName>(["p95_latency_5m", "p99_latency_5m", "cost_per_request"]);

const spec = (name: TScoreName, fromTelemetry: boolean, safeDefault: number): TIndexSpec => ({
  name,
  fromTelemetry,
  raw: (m, cost) => rawMetric(name, m, cost),
  index: (r, n, samples) => scoreIndex(name, r, n, samples),
  safeDefault,
  relative: RELATIVE.has(name),
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
