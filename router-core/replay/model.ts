/**
 * Simulated providers. A provider model says, for a provider, region and minute, how a call
 * behaves; the scenario generators and the what-if replay (recorded per-minute rates) both
 * produce one. Probabilities are compared with the request's pre-drawn uniforms, so the same
 * request meets the same luck whichever provider a policy sends it to.
 */
export type TCondition = {
  /** Probability the call fails fast (5xx). */
  errorP: number;
  /** Probability the call times out; checked before errorP on the same draw. */
  timeoutP: number;
  /** Probability a call that answered still fails the business outcome at the provider stage. */
  completionFailP: number;
  /** p95 latency of answered calls, ms. */
  p95Ms: number;
  /** Calls the provider accepts per minute before answering 429; null = no limit. */
  quotaPerMinute: number | null;
  /** Whether a call here counts as sent to a degraded provider-region (degraded minutes). */
  degraded: boolean;
};

export interface ProviderModel {
  readonly providers: readonly string[];
  readonly regions: readonly string[];
  condition(provider: number, region: number, minute: number): TCondition;
}

export type TCallResult = {
  ok: boolean;
  completed: boolean;
  latencyMs: number;
  kind: "ok" | "error" | "timeout" | "throttled";
  /** The request met a degraded provider-region (for quota: it was over the quota). */
  exposed: boolean;
};

export const TIMEOUT_MS = 3000;
const THROTTLE_LATENCY_MS = 25;
/** Lognormal spread of latencies: p95 / median = e^(1.645 σ) ≈ 1.8. */
const LATENCY_SIGMA = 0.36;
const Z95 = 1.6448536;

/** Per-run provider state the model needs (quota counters); one per run. */
export type TProviderRuntime = { quotaMinute: Int32Array; quotaUsed: Int32Array };

export function createProviderRuntime(model: ProviderModel): TProviderRuntime {
  const n = model.providers.length * model.regions.length;
  return { quotaMinute: new Int32Array(n).fill(-1), quotaUsed: new Int32Array(n) };
}

/** One provider call. Quotas are per provider and count across regions. */
export function simulateCall(
  model: ProviderModel,
  rt: TProviderRuntime,
  provider: number,
  region: number,
  minute: number,
  uCall: number,
  uComplete: number,
  z: number,
): TCallResult {
  const c = model.condition(provider, region, minute);
  if (c.quotaPerMinute !== null) {
    if (rt.quotaMinute[provider] !== minute) {
      rt.quotaMinute[provider] = minute;
      rt.quotaUsed[provider] = 0;
    }
    if (rt.quotaUsed[provider]! >= c.quotaPerMinute) {
      return { ok: false, completed: false, latencyMs: THROTTLE_LATENCY_MS, kind: "throttled", exposed: true };
    }
    rt.quotaUsed[provider]!++;
  }
  // A quota-limited provider is degraded only for the calls over its quota.
  const exposed = c.degraded && c.quotaPerMinute === null;
  if (uCall < c.timeoutP) return { ok: false, completed: false, latencyMs: TIMEOUT_MS, kind: "timeout", exposed };
  const latencyMs = Math.min(TIMEOUT_MS, c.p95Ms * Math.exp(LATENCY_SIGMA * (z - Z95)));
  if (uCall < c.timeoutP + c.errorP) return { ok: false, completed: false, latencyMs: Math.min(latencyMs, 120), kind: "error", exposed };
  return { ok: true, completed: uComplete >= c.completionFailP, latencyMs, kind: "ok", exposed };
}
