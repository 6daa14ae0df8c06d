import { createHistogram, histogramQuantile, mergeHistogramInto, recordLatency, type TLatencyHistogram } from "../metrics/histogram";
import { countOscillations, countSwitches, degradedMinutes, minuteLeaders, shiftAwayMinutes, successRate } from "./metrics";
import { createProviderRuntime, simulateCall, type ProviderModel, type TCallResult } from "./model";
import type { TTraffic } from "./traffic";

/**
 * A routing policy under replay. The engine feeds it requests in time order; it answers with a
 * provider index (or -1: no provider, the request is queued or refused and counts as failed),
 * then sees the call's outcome. `tick` runs every `tickMs` of simulated time before the first
 * request at or after that moment (controller ticks, telemetry delivery).
 */
export interface ReplayPolicy {
  readonly tickMs: number;
  tick(now: number): void;
  route(now: number, region: number, u: number): number;
  observe(now: number, region: number, provider: number, result: TCallResult): void;
  /** Current traffic shares of a region, by provider index, for the trace; null when the policy has none. */
  shares(region: number): readonly number[] | null;
}

export type TRunSetup = {
  model: ProviderModel;
  traffic: TTraffic;
  /** Degradation start, minutes: shift-away minutes are measured from it. */
  degradedFrom: number;
  /** Region indices of the affected scope. */
  affectedRegions: readonly number[];
  /** Index of the primary provider whose share shift-away minutes follow. */
  primary?: number;
};

export type TProviderMinute = { provider: string; requests: number; successes: number; p95Ms: number | null };

export type TTraceMinute = {
  minute: number;
  requests: number;
  successes: number;
  /** Requests sent to a degraded provider-region. */
  exposed: number;
  /** Requests no provider took (fallback). */
  unrouted: number;
  providers: TProviderMinute[];
  /** Controller shares per region at the end of the minute (factor list only). */
  shares: Record<string, Record<string, number>> | null;
};

export type TRunMetrics = {
  requests: number;
  successes: number;
  successRate: number;
  failures: number;
  unrouted: number;
  p95Ms: number | null;
  degradedMinutes: number;
  switches: number;
  oscillations: number;
  shiftAwayMinutes: number | null;
};

export type TRunResult = {
  metrics: TRunMetrics;
  trace: TTraceMinute[];
  latency: TLatencyHistogram;
  /** Requests per [region][provider] over the whole run: where each region's traffic went. */
  servedByRegion: number[][];
};

export const SLOT_SECONDS = 10;

export function runReplay(setup: TRunSetup, policy: ReplayPolicy): TRunResult {
  const tally = createTally(setup);
  replayTraffic(setup, policy, tally);
  return {
    metrics: summarise(setup, tally),
    trace: buildTrace(setup.model, tally),
    latency: tally.latency,
    servedByRegion: servedByRegion(tally),
  };
}

function servedByRegion(t: TTally): number[][] {
  const out = Array.from({ length: t.R }, () => new Array<number>(t.P).fill(0));
  for (let m = 0; m < t.M; m++) for (let r = 0; r < t.R; r++) for (let p = 0; p < t.P; p++) out[r]![p]! += t.served[(m * t.R + r) * t.P + p]!;
  return out;
}

/** What a run counts, per minute (M), region (R), provider (P) and shift-away slot. */
type TTally = {
  P: number;
  R: number;
  M: number;
  slots: number;
  /** Requests per minute × region × provider. */
  served: Int32Array;
  /** Completions per minute × provider. */
  succeeded: Int32Array;
  exposed: Int32Array;
  total: Int32Array;
  okPerMinute: Int32Array;
  unroutedPerMinute: Int32Array;
  /** Per slot, requests in the affected regions and those the primary took. */
  slotAll: Int32Array;
  slotPrimary: Int32Array;
  latency: TLatencyHistogram;
  minuteLatency: TLatencyHistogram[];
  shares: TTraceMinute["shares"][];
};

function createTally(setup: TRunSetup): TTally {
  const P = setup.model.providers.length;
  const R = setup.model.regions.length;
  const M = setup.traffic.minutes;
  const slots = Math.ceil((M * 60) / SLOT_SECONDS);
  return {
    P,
    R,
    M,
    slots,
    served: new Int32Array(M * R * P),
    succeeded: new Int32Array(M * P),
    exposed: new Int32Array(M),
    total: new Int32Array(M),
    okPerMinute: new Int32Array(M),
    unroutedPerMinute: new Int32Array(M),
    slotAll: new Int32Array(slots),
    slotPrimary: new Int32Array(slots),
    latency: createHistogram(),
    minuteLatency: Array.from({ length: M * P }, () => createHistogram()),
    shares: new Array<TTraceMinute["shares"]>(M).fill(null),
  };
}

/** Feeds every request to the policy in time order, with its ticks, and counts what the simulated calls did. */
function replayTraffic(setup: TRunSetup, policy: ReplayPolicy, t: TTally): void {
  const { model, traffic } = setup;
  const { P, R, M } = t;
  const primary = setup.primary ?? 0;
  const affected = new Uint8Array(R);
  for (const r of setup.affectedRegions) affected[r] = 1;
  const rt = createProviderRuntime(model);
  let nextTick = 0;
  let minuteEnd = 60_000;
  let minute = 0;
  const n = traffic.at.length;
  for (let i = 0; i < n; i++) {
    const now = traffic.at[i]!;
    if (policy.tickMs > 0) {
      while (nextTick <= now) {
        policy.tick(nextTick);
        nextTick += policy.tickMs;
      }
    }
    while (now >= minuteEnd) {
      t.shares[minute] = snapshotShares(policy, model);
      minute++;
      minuteEnd += 60_000;
    }
    const r = traffic.region[i]!;
    t.total[minute]!++;
    const p = policy.route(now, r, traffic.uRoute[i]!);
    const slot = Math.floor(now / (SLOT_SECONDS * 1000));
    if (affected[r] === 1) {
      t.slotAll[slot]!++;
      if (p === primary) t.slotPrimary[slot]!++;
    }
    if (p < 0) {
      t.unroutedPerMinute[minute]!++;
      continue;
    }
    const res = simulateCall(model, rt, p, r, minute, traffic.uCall[i]!, traffic.uComplete[i]!, traffic.zLatency[i]!);
    t.served[(minute * R + r) * P + p]!++;
    if (res.exposed) t.exposed[minute]!++;
    if (res.completed) {
      t.okPerMinute[minute]!++;
      t.succeeded[minute * P + p]!++;
    }
    recordLatency(t.latency, res.latencyMs);
    recordLatency(t.minuteLatency[minute * P + p]!, res.latencyMs);
    policy.observe(now, r, p, res);
  }
  for (; minute < M; minute++) t.shares[minute] = snapshotShares(policy, model);
}

function summarise(setup: TRunSetup, t: TTally): TRunMetrics {
  const { P, R, M, slots, served } = t;
  const n = setup.traffic.at.length;
  let successes = 0;
  let unrouted = 0;
  for (let m = 0; m < M; m++) {
    successes += t.okPerMinute[m]!;
    unrouted += t.unroutedPerMinute[m]!;
  }
  let switches = 0;
  let oscillations = 0;
  for (let r = 0; r < R; r++) {
    const rows: number[][] = [];
    for (let m = 0; m < M; m++) rows.push(Array.from(served.subarray((m * R + r) * P, (m * R + r + 1) * P)));
    const leaders = minuteLeaders(rows);
    switches += countSwitches(leaders);
    oscillations += countOscillations(leaders);
  }
  const primaryShare = new Float64Array(slots);
  for (let s = 0; s < slots; s++) primaryShare[s] = t.slotAll[s]! > 0 ? t.slotPrimary[s]! / t.slotAll[s]! : NaN;
  const startSlot = Math.floor((setup.degradedFrom * 60) / SLOT_SECONDS);
  return {
    requests: n,
    successes,
    successRate: successRate(successes, n),
    failures: n - successes,
    unrouted,
    p95Ms: histogramQuantile(t.latency, 0.95),
    degradedMinutes: degradedMinutes(t.exposed, t.total),
    switches,
    oscillations,
    shiftAwayMinutes: shiftAwayMinutes(primaryShare, startSlot, SLOT_SECONDS),
  };
}

function buildTrace(model: ProviderModel, t: TTally): TTraceMinute[] {
  const { P, R, M, served } = t;
  const trace: TTraceMinute[] = [];
  for (let m = 0; m < M; m++) {
    const providers: TProviderMinute[] = [];
    for (let p = 0; p < P; p++) {
      let req = 0;
      for (let r = 0; r < R; r++) req += served[(m * R + r) * P + p]!;
      providers.push({
        provider: model.providers[p]!,
        requests: req,
        successes: t.succeeded[m * P + p]!,
        p95Ms: histogramQuantile(t.minuteLatency[m * P + p]!, 0.95),
      });
    }
    trace.push({
      minute: m,
      requests: t.total[m]!,
      successes: t.okPerMinute[m]!,
      exposed: t.exposed[m]!,
      unrouted: t.unroutedPerMinute[m]!,
      providers,
      shares: t.shares[m] ?? null,
    });
  }
  return trace;
}

function snapshotShares(policy: ReplayPolicy, model: ProviderModel): TTraceMinute["shares"] {
  const out: Record<string, Record<string, number>> = {};
  for (let r = 0; r < model.regions.length; r++) {
    const s = policy.shares(r);
    if (s === null) return null;
    const row: Record<string, number> = {};
    model.providers.forEach((p, i) => (row[p] = s[i] ?? 0));
    out[model.regions[r]!] = row;
  }
  return out;
}

/** Latency histograms of several runs merged, for aggregate p95s. */
export function mergedP95(histograms: readonly TLatencyHistogram[]): number | null {
  const h = createHistogram();
  for (const x of histograms) mergeHistogramInto(h, x);
  return histogramQuantile(h, 0.95);
}
