import { createHistogram, histogramQuantile, mergeHistogramInto, recordLatency, type TLatencyHistogram } from "../metrics/histogram";
import {
  countOscillations,
  countSwitches,
  degradedMinutes,
  minuteLeaders,
  shiftAwayMinutes,
  successRate,
} from "./metrics";
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

export type TRunResult = { metrics: TRunMetrics; trace: TTraceMinute[]; latency: TLatencyHistogram };

export const SLOT_SECONDS = 10;

export function runReplay(setup: TRunSetup, policy: ReplayPolicy): TRunResult {
  const { model, traffic } = setup;
  const P = model.providers.length;
  const R = model.regions.length;
  const M = traffic.minutes;
  const primary = setup.primary ?? 0;
  const slots = Math.ceil((M * 60) / SLOT_SECONDS);
  const served = new Int32Array(M * R * P);
  const succeeded = new Int32Array(M * P);
  const exposed = new Int32Array(M);
  const total = new Int32Array(M);
  const okPerMinute = new Int32Array(M);
  const unroutedPerMinute = new Int32Array(M);
  const slotAll = new Int32Array(slots);
  const slotPrimary = new Int32Array(slots);
  const affected = new Uint8Array(R);
  for (const r of setup.affectedRegions) affected[r] = 1;
  const latency = createHistogram();
  const minuteLatency: TLatencyHistogram[] = Array.from({ length: M * P }, () => createHistogram());
  const shares: (TTraceMinute["shares"])[] = new Array<TTraceMinute["shares"]>(M).fill(null);
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
      shares[minute] = snapshotShares(policy, model);
      minute++;
      minuteEnd += 60_000;
    }
    const r = traffic.region[i]!;
    total[minute]!++;
    const p = policy.route(now, r, traffic.uRoute[i]!);
    const slot = Math.floor(now / (SLOT_SECONDS * 1000));
    if (affected[r] === 1) {
      slotAll[slot]!++;
      if (p === primary) slotPrimary[slot]!++;
    }
    if (p < 0) {
      unroutedPerMinute[minute]!++;
      continue;
    }
    const res = simulateCall(model, rt, p, r, minute, traffic.uCall[i]!, traffic.uComplete[i]!, traffic.zLatency[i]!);
    served[(minute * R + r) * P + p]!++;
    if (res.exposed) exposed[minute]!++;
    if (res.completed) {
      okPerMinute[minute]!++;
      succeeded[minute * P + p]!++;
    }
    recordLatency(latency, res.latencyMs);
    recordLatency(minuteLatency[minute * P + p]!, res.latencyMs);
    policy.observe(now, r, p, res);
  }
  for (; minute < M; minute++) shares[minute] = snapshotShares(policy, model);

  let successes = 0;
  let unrouted = 0;
  for (let m = 0; m < M; m++) {
    successes += okPerMinute[m]!;
    unrouted += unroutedPerMinute[m]!;
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
  for (let s = 0; s < slots; s++) primaryShare[s] = slotAll[s]! > 0 ? slotPrimary[s]! / slotAll[s]! : NaN;
  const startSlot = Math.floor((setup.degradedFrom * 60) / SLOT_SECONDS);

  const trace: TTraceMinute[] = [];
  for (let m = 0; m < M; m++) {
    const providers: TProviderMinute[] = [];
    for (let p = 0; p < P; p++) {
      let req = 0;
      for (let r = 0; r < R; r++) req += served[(m * R + r) * P + p]!;
      providers.push({
        provider: model.providers[p]!,
        requests: req,
        successes: succeeded[m * P + p]!,
        p95Ms: histogramQuantile(minuteLatency[m * P + p]!, 0.95),
      });
    }
    trace.push({
      minute: m,
      requests: total[m]!,
      successes: okPerMinute[m]!,
      exposed: exposed[m]!,
      unrouted: unroutedPerMinute[m]!,
      providers,
      shares: shares[m] ?? null,
    });
  }
  return {
    metrics: {
      requests: n,
      successes,
      successRate: successRate(successes, n),
      failures: n - successes,
      unrouted,
      p95Ms: histogramQuantile(latency, 0.95),
      degradedMinutes: degradedMinutes(exposed, total),
      switches,
      oscillations,
      shiftAwayMinutes: shiftAwayMinutes(primaryShare, startSlot, SLOT_SECONDS),
    },
    trace,
    latency,
  };
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
