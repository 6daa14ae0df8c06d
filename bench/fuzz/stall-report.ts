import type { ChildProcess } from "node:child_process";
import { cpus, loadavg } from "node:os";
import { writeBenchResult } from "../lib/bench-results";
import type { THealthReport } from "./fuzz-concurrent";
import { attributeProbes, formatAttribution, stallSummary, type TLoopReport } from "./stall-attribution";

/** The server's event-loop stalls so far (memory-probe.ts answers "sy:loop"). */
export function loopOf(server: ChildProcess): Promise<TLoopReport> {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error("the server did not answer the loop probe")), 10_000);
    const onMessage = (m: { type?: string } & TLoopReport) => {
      if (m?.type !== "sy:loop") return;
      clearTimeout(timer);
      server.off("message", onMessage);
      resolve({ stalls: m.stalls, p99Ms: m.p99Ms, maxMs: m.maxMs });
    };
    server.on("message", onMessage);
    server.send("sy:loop");
  });
}

export type TStallFindings = { health: THealthReport; loop: TLoopReport; loadBefore: number; loadAfter: number; busyStall: boolean };

/** The 1-minute load average per core now: above 1, threads wait for a CPU. */
export const loadPerCore = () => Math.round((loadavg()[0]! / cpus().length) * 100) / 100;

/**
 * Where the slowest /health probes (and the router-only probes) went: the server's loop busy
 * (a request stalled it: the invariant's business), or the server waiting for a CPU or for
 * Postgres (the machine's). `busyStall`: some request held the loop past `limitMs`.
 */
export function stallFindings(
  health: THealthReport,
  all: TLoopReport,
  loadBefore: number,
  limitMs: number,
  inFlight: (from: number, to: number) => { labels: string; excluded: boolean },
): { text: string; findings: TStallFindings } {
  // Stalls before the first request (start-up) or in the fuzzer's own forced full GC (the memory
  // samples) are not a request's: they are left out, as the probes over them are.
  const loop = {
    ...all,
    stalls: all.stalls.filter((x) => {
      const m = inFlight(x.at, x.at + x.lateMs);
      return m.labels !== "" && !m.excluded;
    }),
  };
  const s = stallSummary(loop);
  const busiest = loop.stalls
    .sort((a, b) => b.cpuMs - a.cpuMs)
    .slice(0, 5)
    .map(
      (x) => `       loop held ${x.lateMs.toFixed(0)} ms (${x.cpuMs.toFixed(0)} ms on a CPU) during ${inFlight(x.at, x.at + x.lateMs).labels.slice(0, 200)}`,
    );
  const findings = { health, loop, loadBefore, loadAfter: loadPerCore(), busyStall: s.cpuMaxMs > limitMs };
  const text = [
    `${findings.busyStall ? "FAIL" : "ok  "} no request holds the server's event loop past ${limitMs} ms: at most ${s.cpuMaxMs.toFixed(0)} ms of the server's main-thread CPU time within one stall; longest stall mostly on a CPU ${s.busyMaxMs.toFixed(0)} ms, mostly waiting for one ${s.idleMaxMs.toFixed(0)} ms (${s.stalls} stalls over 40 ms; loop delay p99 ${loop.p99Ms.toFixed(1)} ms); load per core ${loadBefore} before, ${findings.loadAfter} after`,
    ...formatAttribution("/health", attributeProbes(health.worst, loop)),
    ...formatAttribution("404 path", attributeProbes(health.loop.worst, loop)),
    ...busiest,
  ].join("\n");
  return { text, findings };
}

/** bench-results/fuzz.json: the run's invariants and its /health timings with their causes. */
export function writeFuzzResult(f: TStallFindings, opts: { seed: number; runs: number; failed: boolean; requests: number }, limitMs: number): string {
  const s = stallSummary(f.loop);
  const causes = attributeProbes(f.health.worst, f.loop);
  return writeBenchResult({
    name: "fuzz",
    title: "Fuzzing",
    command: `npm run fuzz -- --runs ${opts.runs} --seed ${opts.seed}`,
    parameters: { runs: opts.runs, seed: opts.seed, "load per core before": f.loadBefore, "load per core after": f.loadAfter },
    figures: [
      { label: "/health p50", value: f.health.p50Ms, unit: "ms" },
      { label: "/health p99", value: f.health.p99Ms, unit: "ms" },
      { label: "/health max", value: f.health.maxMs, unit: "ms", target: `< ${limitMs} on an idle machine` },
      { label: "router-only path max (no database)", value: f.health.loop.maxMs, unit: "ms" },
      { label: "server main-thread CPU time within one loop stall, max", value: s.cpuMaxMs, unit: "ms", target: `< ${limitMs}` },
      { label: "longest loop stall, mostly on a CPU", value: s.busyMaxMs, unit: "ms" },
      { label: "longest loop stall, mostly waiting for a CPU", value: s.idleMaxMs, unit: "ms" },
    ],
    tables: [
      {
        title: "the slowest /health probes and where their time went",
        columns: ["ms", "cause", "loop busy ms", "loop not running ms"],
        rows: causes.map((c) => [Math.round(c.ms), c.cause, Math.round(c.busyMs), Math.round(c.idleMs)]),
      },
    ],
    invariants: [
      { label: "every invariant of npm run fuzz", ok: !opts.failed, detail: `${opts.requests} requests` },
      { label: `no request holds the event loop past ${limitMs} ms`, ok: !f.busyStall },
    ],
    notes: [verdict(f, limitMs)],
  });
}

/** The run's answer to "load or a real stall", in a sentence, from its own figures. */
function verdict(f: TStallFindings, limitMs: number): string {
  const s = stallSummary(f.loop);
  const causes = attributeProbes(f.health.worst, f.loop);
  const count = (c: string) => causes.filter((x) => x.cause === c).length;
  const load = `load per core ${f.loadBefore} before the data-plane phase and ${f.loadAfter} after (2 cores shared with the fuzzer, its 200 slow clients, Postgres and whatever else ran)`;
  if (f.busyStall)
    return `A real stall: the server's main thread spent ${s.cpuMaxMs.toFixed(0)} ms on a CPU within one loop stall (over ${limitMs} ms); ${load}.`;
  return (
    `Load, not a stall: of the ${causes.length} slowest /health probes, ${count("server process not running")} overlapped the server process waiting for a CPU, ` +
    `${count("outside the server's loop")} waited outside its loop (Postgres, the prober) and ${count("server loop busy")} overlapped its loop busy; ` +
    `the most CPU time the server's main thread spent within one loop stall was ${s.cpuMaxMs.toFixed(0)} ms (under ${limitMs} ms); ${load}.`
  );
}
