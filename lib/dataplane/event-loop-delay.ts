import { monitorEventLoopDelay, type IntervalHistogram } from "node:perf_hooks";

/**
 * How late this process's event loop ran, per 10-second window: a stall here (a long GC pause, a
 * synchronous task) delays every request in flight, so it is what a latency tail is checked
 * against first. Sampled every 10 ms by Node's own timer (perf_hooks.monitorEventLoopDelay);
 * `current()` is the last complete window, in milliseconds.
 */
export type TEventLoopDelay = { p50: number; p99: number; max: number; windowEndedAt: number };

const WINDOW_MS = 10_000;
const RESOLUTION_MS = 10;
let histogram: IntervalHistogram | null = null;
let last: TEventLoopDelay | null = null;

function snapshot(h: IntervalHistogram, at: number): TEventLoopDelay {
  // The histogram holds the time between samples, resolution included: the delay is what exceeds it.
  const ms = (ns: number) => (Number.isFinite(ns) ? Math.max(0, Math.round((ns - RESOLUTION_MS * 1e6) / 1e4) / 100) : 0);
  return { p50: ms(h.percentile(50)), p99: ms(h.percentile(99)), max: ms(h.max), windowEndedAt: at };
}

/** Starts the monitor once per process (idempotent); `windowMs` is for tests. */
export function startEventLoopDelayMonitor(windowMs = WINDOW_MS): void {
  if (histogram) return;
  const h = monitorEventLoopDelay({ resolution: RESOLUTION_MS });
  h.enable();
  histogram = h;
  const timer = setInterval(() => {
    last = h.count > 0 ? snapshot(h, Date.now()) : null;
    h.reset();
  }, windowMs);
  timer.unref();
}

export function eventLoopDelay(): TEventLoopDelay | null {
  return last;
}
