import { createClock } from "../../router-core/clock";
import { decide } from "../../router-core/decision/decide";
import { parseFactorList } from "../../router-core/policy/codec";
import { createSeededRandom } from "../../router-core/random";
import type { TMetricSnapshot, TProviderInfo, TRequestContext, TRouterState } from "../../router-core/types";

/**
 * The workload shared by the bench and the callgrind driver. Every call of `once` is a real
 * decision: a new request context (request id from a pool of 4096, region alternating EU/US with
 * each region's own routing state and shares, a sequence number), the clock advancing by 1 ms and
 * a fresh random draw. Nothing is cached across calls here. Metric snapshots are replaced every
 * 30 simulated seconds, as the data plane's refresh does, so they stay fresh: without that the
 * clock would outrun them within a minute and every decision would take the stale path.
 */
const ID_POOL = 4096;

const parsed = parseFactorList(`
operation: SEND_SMS
refresh_interval_seconds: 30
metric_window_minutes: 5
min_sample_size: 200
fallback_policy: use_secondary_then_queue
gates: [supports_region, compliance_allowed, credentials_valid, quota_available, circuit_breaker_closed, metric_fresh_or_safe_default]
scores:
  completion_rate_5m: {weight: 0.45, direction: higher}
  p95_latency_5m: {weight: 0.20, direction: lower}
  cost_per_request: {weight: 0.15, direction: lower}
  recent_incident_penalty: {weight: 0.10, direction: lower}
  confidence_from_sample: {weight: 0.10, direction: higher}
guardrails: {max_p95_ms: 2000}
regions:
  EU: {required_compliance: [gdpr]}
`);
if (!parsed.ok) throw new Error(JSON.stringify(parsed.errors));
const policy = parsed.value;

const REFRESH_MS = 30_000;

function makeProviders(n: number): TProviderInfo[] {
  const providers: TProviderInfo[] = [];
  for (let i = 0; i < n; i++) {
    providers.push({
      key: `provider_${i}`,
      regions: ["EU", "US"],
      complianceTags: ["gdpr"],
      costPerRequest: 0.01 + i * 0.001,
      credentialStatus: "valid",
      enabled: true,
    });
  }
  return providers;
}

function makeStates(providers: readonly TProviderInfo[], now: number, openBreaker: boolean, metricsAt: number): Record<string, TRouterState> {
  const n = providers.length;
  const metrics: Record<string, TMetricSnapshot> = {};
  for (let i = 0; i < n; i++) {
    const key = `provider_${i}`;
    metrics[key] = {
      sampleCount: 400 + i,
      completionRate: 0.98 - i * 0.01,
      errorRate: 0.01,
      p95Ms: 300 + 20 * i,
      p99Ms: 600 + 40 * i,
      recentIncidents: i % 2,
      confidence: 1,
      updatedAt: metricsAt,
      scope: "region",
    };
  }
  const state = (region: string, skew: number): TRouterState => {
    const shares: Record<string, number> = {};
    for (let i = 0; i < n; i++) shares[`provider_${i}`] = (1 + skew * i) / (n + (skew * n * (n - 1)) / 2);
    return {
      providers,
      metrics,
      breakers: openBreaker
        ? { provider_1: { state: "open", probeAvailable: false, nextAttemptAt: now + 60_000 } }
        : { provider_1: { state: "half_open", probeAvailable: true } },
      quotas: { provider_0: { remainingMinute: 500, remainingDay: null, resetAt: now + 30_000 } },
      shares,
      policyVersion: `bench-${region}`,
    };
  };
  return { EU: state("EU", 0), US: state("US", 0.5) };
}

export type TDriverOptions = {
  /**
   * > 1: each decision gets a different routing state than the one before (built alike, but new
   * map objects, as after every data-plane refresh), so nothing router-core keeps per routing
   * state is reused: the cost of a decision right after a state change.
   */
  distinctStates?: number;
  /**
   * One provider's breaker open, with its next attempt time in the record: a gate outcome that
   * depends on the time, so every decision runs the gates and scores again (an incident).
   */
  openBreaker?: boolean;
  /**
   * Every metric snapshot older than max_metric_age_seconds (a telemetry gap): the factor list's
   * stale penalty applies, and the gate and penalty state the age in whole seconds.
   */
  staleMetrics?: boolean;
};

/** Returns a function making one decision with `n` candidates; it returns the selected count (for a sink). */
export function decisionDriver(n: number, { distinctStates = 1, openBreaker = false, staleMetrics = false }: TDriverOptions = {}): () => number {
  const now = 1_750_000_000_000;
  let t = now;
  const clock = createClock(() => t);
  const random = createSeededRandom(42 + n);
  const providers = makeProviders(n);
  // Fresh: 5 s old at each refresh. Stale: the telemetry stopped 10 minutes before the run began.
  const build = (at: number) => Array.from({ length: distinctStates }, () => makeStates(providers, at, openBreaker, staleMetrics ? now - 600_000 : at - 5_000));
  let pool = build(now);
  let refreshedAt = now;
  const ids = Array.from({ length: ID_POOL }, (_, i) => `req-${i.toString(36)}-${n}`);
  const regions = ["EU", "US"] as const;
  let seq = 0;
  return () => {
    const region = regions[seq & 1]!;
    const ctx: TRequestContext = { operation: "SEND_SMS", region, requestId: ids[seq & (ID_POOL - 1)]!, sequence: seq };
    seq++;
    t++;
    if (t - refreshedAt >= REFRESH_MS) {
      refreshedAt = t;
      pool = build(t);
    }
    // Both regions' decisions of one pair share a pool entry, so consecutive decisions per region differ.
    const d = decide(ctx, pool[(seq >> 1) % distinctStates]![region]!, policy, clock, random);
    return d.selected === null ? 0 : d.candidates.length;
  };
}
