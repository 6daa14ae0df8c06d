import { confidenceFromSamples, type TBreakerState, type TBreakerTransitionReason, type TBreakerView, type TMetricSnapshot } from "../../router-core/index";

/**
 * The synthetic world the scale seed simulates: how much traffic each (operation, region) gets
 * over the day, how healthy each provider is at any moment, and the incidents that move traffic.
 * Everything is a pure function of time and the window start, so two runs with the same
 * arguments describe the same week.
 */

export const MINUTE_MS = 60_000;
export const HOUR_MS = 60 * MINUTE_MS;
export const DAY_MS = 24 * HOUR_MS;

/** Share of all decisions per (operation, region): SMS is the busy operation, EU and NA the busy regions. */
export const SCOPE_WEIGHTS: Readonly<Record<string, number>> = {
  "SEND_SMS|EU": 0.3,
  "SEND_SMS|NA": 0.24,
  "SEND_SMS|APAC": 0.1,
  "SEND_SMS|LATAM": 0.05,
  "SEND_EMAIL|EU": 0.13,
  "SEND_EMAIL|NA": 0.12,
  "SEND_EMAIL|APAC": 0.06,
};

type THealth = { completion: number; p95Ms: number };

const BASE: Readonly<Record<string, THealth>> = {
  provider_A: { completion: 0.976, p95Ms: 720 },
  provider_B: { completion: 0.969, p95Ms: 860 },
  provider_C: { completion: 0.941, p95Ms: 1150 },
  provider_D: { completion: 0.991, p95Ms: 1400 },
  provider_E: { completion: 0.986, p95Ms: 1750 },
};
const FALLBACK_HEALTH: THealth = { completion: 0.95, p95Ms: 1000 };
const REGION_LATENCY: Readonly<Record<string, number>> = { EU: 1, NA: 1.05, APAC: 1.3, LATAM: 1.2 };

export type TEpisode = {
  name: string;
  kind: "completion_drop" | "latency" | "stale_metrics";
  provider: string | null;
  operation: string | null;
  region: string;
  start: number;
  end: number;
  /** completion_drop: completion during the episode; latency: p95 multiplier. */
  magnitude: number;
  /** Breaker transitions the episode causes, as offsets from its start. */
  breaker?: readonly { afterMs: number; to: TBreakerState; reason: TBreakerTransitionReason; detail: string }[];
};

/**
 * The week's incidents, placed relative to the window so the newest one is still on the 24 h
 * chart: provider_A loses completions in EU (breaker opens, traffic moves to B, probes, capped
 * failback), provider_D gets slow in NA, and SMS metrics in NA stop refreshing for a while
 * (decisions flagged stale).
 */
export function episodes(windowStart: number, days: number): TEpisode[] {
  const at = (fraction: number) => windowStart + Math.floor((days * DAY_MS * fraction) / MINUTE_MS) * MINUTE_MS;
  const a = at(0.82);
  return [
    {
      name: "provider_A completion drop in EU",
      kind: "completion_drop",
      provider: "provider_A",
      operation: null,
      region: "EU",
      start: a,
      end: a + 95 * MINUTE_MS,
      magnitude: 0.62,
      breaker: [
        { afterMs: 4 * MINUTE_MS, to: "open", reason: "failure_rate", detail: "failure rate 38% over 60 s with 412 calls (threshold 25%)" },
        { afterMs: 9 * MINUTE_MS, to: "half_open", reason: "open_elapsed", detail: "open for 300 s" },
        { afterMs: 10 * MINUTE_MS, to: "open", reason: "probe_failure", detail: "probe failed: http_5xx; next open 600 s" },
        { afterMs: 20 * MINUTE_MS, to: "half_open", reason: "open_elapsed", detail: "open for 600 s" },
        { afterMs: 21 * MINUTE_MS, to: "open", reason: "probe_failure", detail: "probe failed: timeout; next open 1200 s" },
        { afterMs: 41 * MINUTE_MS, to: "half_open", reason: "open_elapsed", detail: "open for 1200 s" },
        { afterMs: 42 * MINUTE_MS, to: "open", reason: "probe_failure", detail: "probe failed: http_5xx; next open 2400 s" },
        { afterMs: 96 * MINUTE_MS, to: "half_open", reason: "open_elapsed", detail: "open for 3240 s" },
        { afterMs: 98 * MINUTE_MS, to: "closed", reason: "probe_successes", detail: "3 probe calls succeeded" },
      ],
    },
    {
      name: "provider_D slow in NA",
      kind: "latency",
      provider: "provider_D",
      operation: null,
      region: "NA",
      start: at(0.93),
      end: at(0.93) + 45 * MINUTE_MS,
      magnitude: 3.2,
    },
    {
      name: "SMS metrics stale in NA",
      kind: "stale_metrics",
      provider: null,
      operation: "SEND_SMS",
      region: "NA",
      start: at(0.35),
      end: at(0.35) + 25 * MINUTE_MS,
      magnitude: 1,
    },
  ];
}

/** Traffic over the day (UTC): a trough at night, a peak in the afternoon; 1 on average. */
export function diurnal(t: number): number {
  const hour = (t % DAY_MS) / HOUR_MS;
  return 1 + 0.55 * Math.sin(((hour - 8) / 24) * 2 * Math.PI);
}

/** Smooth, deterministic wobble in [-1, 1] per key: health is never perfectly flat. */
function wobble(key: string, t: number): number {
  let h = 0;
  for (let i = 0; i < key.length; i++) h = (h * 31 + key.charCodeAt(i)) >>> 0;
  const phase = (h % 1000) / 1000;
  return 0.6 * Math.sin((t / (97 * MINUTE_MS) + phase) * 2 * Math.PI) + 0.4 * Math.sin((t / (13 * MINUTE_MS) + phase * 3) * 2 * Math.PI);
}

export function health(provider: string, region: string, t: number, eps: readonly TEpisode[]): THealth {
  const base = BASE[provider] ?? FALLBACK_HEALTH;
  const w = wobble(`${provider}|${region}`, t);
  let completion = Math.min(0.999, base.completion + 0.004 * w);
  let p95Ms = base.p95Ms * (REGION_LATENCY[region] ?? 1) * (1 + 0.08 * w);
  for (const e of eps) {
    if (e.provider !== provider || e.region !== region || t < e.start || t >= e.end) continue;
    if (e.kind === "completion_drop") completion = e.magnitude;
    if (e.kind === "latency") p95Ms *= e.magnitude;
  }
  return { completion, p95Ms };
}

/** Open-ended breaker state of (provider, region) at t from the episodes' transitions; closed when none. */
export function breakerAt(provider: string, region: string, t: number, eps: readonly TEpisode[]): TBreakerView | null {
  let state: TBreakerState | null = null;
  let openedAt: number | undefined;
  for (const e of eps) {
    if (e.provider !== provider || e.region !== region || !e.breaker) continue;
    for (const b of e.breaker) {
      if (e.start + b.afterMs > t) break;
      state = b.to;
      if (b.to === "open") openedAt = e.start + b.afterMs;
    }
  }
  if (state === null || state === "closed") return null;
  return { state, probeAvailable: state === "half_open", openedAt };
}

/** Breaker openings of (provider, region) within [t - windowMs, t]: the incident penalty's input. */
export function incidentsIn(provider: string, region: string, t: number, windowMs: number, eps: readonly TEpisode[]): number {
  let n = 0;
  for (const e of eps) {
    if (e.provider !== provider || e.region !== region || !e.breaker) continue;
    for (const b of e.breaker) {
      const at = e.start + b.afterMs;
      if (b.to === "open" && at <= t && at > t - windowMs) n++;
    }
  }
  return n;
}

/** When the metrics of (operation, region) last refreshed as of t: frozen at an episode's start while it lasts. */
export function metricsRefreshedAt(operation: string, region: string, t: number, eps: readonly TEpisode[]): number {
  for (const e of eps) {
    if (e.kind === "stale_metrics" && e.operation === operation && e.region === region && t >= e.start && t < e.end) return e.start;
  }
  return t - 3_000;
}

/**
 * The metric snapshot the router would hold for a provider at t: the model's health, with the
 * sample count of `callsPerWindow` calls (so a provider on its probe floor has thin evidence).
 */
export function snapshot(opts: {
  provider: string;
  operation: string;
  region: string;
  t: number;
  callsPerWindow: number;
  windowMinutes: number;
  minSampleSize: number;
  eps: readonly TEpisode[];
}): TMetricSnapshot {
  const h = health(opts.provider, opts.region, opts.t, opts.eps);
  const sampleCount = Math.max(0, Math.round(opts.callsPerWindow));
  return {
    sampleCount,
    completionRate: sampleCount > 0 ? h.completion : null,
    errorRate: sampleCount > 0 ? Math.min(1, (1 - h.completion) * 0.7) : null,
    p95Ms: sampleCount > 0 ? h.p95Ms : null,
    p99Ms: sampleCount > 0 ? h.p95Ms * 1.7 : null,
    recentIncidents: incidentsIn(opts.provider, opts.region, opts.t, opts.windowMinutes * MINUTE_MS, opts.eps),
    confidence: confidenceFromSamples(sampleCount, opts.minSampleSize),
    updatedAt: sampleCount > 0 ? metricsRefreshedAt(opts.operation, opts.region, opts.t, opts.eps) : null,
    scope: sampleCount > 0 ? "region" : "none",
  };
}
