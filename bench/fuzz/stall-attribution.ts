import type { TLoopStall } from "./memory-probe";

/** What the server reported about its event loop (memory-probe.ts, "sy:loop"). */
export type TLoopReport = { stalls: TLoopStall[]; p99Ms: number; maxMs: number };

export type TAttributed = {
  at: number;
  ms: number;
  busyMs: number;
  idleMs: number;
  cause: "server loop busy" | "server process not running" | "outside the server's loop";
};

/**
 * A stall during which the process spent at least half the time on a CPU: its own code (a
 * request, GC) held the loop. Less than that: it was runnable but not running, which on a
 * machine with more runnable threads than cores is the scheduler, not a request.
 */
export const isBusy = (s: TLoopStall): boolean => s.cpuMs >= 0.5 * s.lateMs;

/**
 * Why each slow probe was slow: the server's stalls that overlap it, split into busy and idle
 * time. A probe slow without any stall overlapping waited outside the server's event loop:
 * for Postgres (/health queries it), or the prober's own thread was not scheduled.
 */
export function attributeProbes(probes: ReadonlyArray<{ at: number; ms: number }>, loop: TLoopReport): TAttributed[] {
  return probes.map((p) => {
    let busyMs = 0;
    let idleMs = 0;
    for (const s of loop.stalls) {
      const overlap = Math.min(p.at + p.ms, s.at + s.lateMs) - Math.max(p.at, s.at);
      if (overlap <= 0) continue;
      if (isBusy(s)) busyMs += overlap;
      else idleMs += overlap;
    }
    const cause = busyMs >= p.ms / 2 ? "server loop busy" : idleMs >= p.ms / 2 ? "server process not running" : "outside the server's loop";
    return { at: p.at, ms: p.ms, busyMs, idleMs, cause };
  });
}

/**
 * The longest stalls of each kind, and the most CPU time the server's main thread spent within
 * one stall: what its own work would have stalled the loop for on an idle machine.
 */
export function stallSummary(loop: TLoopReport): { busyMaxMs: number; idleMaxMs: number; cpuMaxMs: number; stalls: number } {
  const busy = loop.stalls.filter(isBusy);
  const idle = loop.stalls.filter((s) => !isBusy(s));
  return {
    busyMaxMs: Math.max(0, ...busy.map((s) => s.lateMs)),
    idleMaxMs: Math.max(0, ...idle.map((s) => s.lateMs)),
    cpuMaxMs: Math.max(0, ...loop.stalls.map((s) => s.cpuMs)),
    stalls: loop.stalls.length,
  };
}

export function formatAttribution(label: string, rows: readonly TAttributed[]): string[] {
  return rows.map(
    (r) => `       ${label} ${r.ms.toFixed(1)} ms: ${r.cause} (server loop stalled ${r.busyMs.toFixed(0)} ms busy, ${r.idleMs.toFixed(0)} ms not running)`,
  );
}
