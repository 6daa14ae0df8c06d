import { performance } from "node:perf_hooks";
import { createClock } from "../clock";
import { decide } from "../decision/decide";
import { parseFactorList } from "../policy/codec";
import { createSeededRandom } from "../random";
import type { TMetricSnapshot, TProviderInfo, TRouterState } from "../types";

/**
 * Decisions per second and per-decision latency with full explanation records, on one core.
 * Latency is sampled per batch of BATCH decisions (timer resolution is ~tens of ns) and divided
 * by the batch size; p50/p99 are over batches.
 */
const ITERATIONS = 2_000_000;
const WARMUP = 300_000;
const BATCH = 100;

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
`);
if (!parsed.ok) throw new Error(JSON.stringify(parsed.errors));
const policy = parsed.value;

function makeState(n: number, now: number): TRouterState {
  const providers: TProviderInfo[] = [];
  const metrics: Record<string, TMetricSnapshot> = {};
  const shares: Record<string, number> = {};
  for (let i = 0; i < n; i++) {
    const key = `provider_${i}`;
    providers.push({
      key,
      regions: ["EU", "US"],
      complianceTags: ["gdpr"],
      costPerRequest: 0.01 + i * 0.001,
      credentialStatus: "valid",
      enabled: true,
    });
    metrics[key] = {
      sampleCount: 400 + i,
      completionRate: 0.98 - i * 0.01,
      errorRate: 0.01,
      p95Ms: 300 + 20 * i,
      p99Ms: 600 + 40 * i,
      recentIncidents: i % 2,
      confidence: 1,
      updatedAt: now - 5_000,
      scope: "region",
    };
    shares[key] = 1 / n;
  }
  return {
    providers,
    metrics,
    breakers: { provider_1: { state: "half_open", probeAvailable: true } },
    quotas: { provider_0: { remainingMinute: 500, remainingDay: null, resetAt: now + 30_000 } },
    shares,
    policyVersion: "bench",
  };
}

function bench(n: number) {
  const now = 1_750_000_000_000;
  let t = now;
  const clock = createClock(() => t);
  const random = createSeededRandom(42);
  const state = makeState(n, now);
  const ctx = { operation: "SEND_SMS", region: "EU", requestId: "bench" };
  let sink = 0;
  for (let i = 0; i < WARMUP; i++) sink += decide(ctx, state, policy, clock, random).candidates.length;
  const samples = new Float64Array(ITERATIONS / BATCH);
  const start = performance.now();
  for (let b = 0; b < samples.length; b++) {
    const s = performance.now();
    for (let i = 0; i < BATCH; i++) {
      t++;
      const d = decide(ctx, state, policy, clock, random);
      if (d.selected !== null) sink++;
    }
    samples[b] = ((performance.now() - s) * 1000) / BATCH;
  }
  const elapsed = performance.now() - start;
  samples.sort();
  const q = (p: number) => samples[Math.min(samples.length - 1, Math.floor(p * samples.length))]!;
  console.log(
    `${String(n).padStart(2)} candidates: ${Math.round((ITERATIONS / elapsed) * 1000).toLocaleString("en-US")} decisions/s, ` +
      `p50 ${q(0.5).toFixed(3)} µs, p99 ${q(0.99).toFixed(3)} µs per decision (batches of ${BATCH}; sink ${sink % 10})`,
  );
}

bench(3);
bench(10);
