import { fork } from "node:child_process";
import { performance } from "node:perf_hooks";
import { fileURLToPath } from "node:url";
import { writeBenchResult, type TBenchFigure } from "../lib/bench-results";
import { decisionDriver, type TDriverOptions } from "./fixture";

/**
 * Decisions per second and per-decision latency with full explanation records, on one core
 * (workload: fixture.ts). Latency is sampled per batch of BATCH decisions, because one timer
 * read costs about as much as a decision, and divided by the batch size: p50/p99 are over batch
 * means. The machine may be shared, so each case runs RUNS times and the best and the median run
 * (by throughput) are printed; instruction counts independent of load: callgrind-driver.ts.
 * The figures also go to bench-results/core.json. It lives in bench/, not router-core/, so the
 * pure core imports nothing outside itself.
 */
const ITERATIONS = 2_000_000;
const RUNS = 5;
const WARMUP = 300_000;
const BATCH = 20;

type TRun = { perSecond: number; p50: number; p99: number };

function run(n: number, options: TDriverOptions): TRun {
  const once = decisionDriver(n, options);
  let sink = 0;
  for (let i = 0; i < WARMUP; i++) sink += once();
  const samples = new Float64Array(ITERATIONS / BATCH);
  const start = performance.now();
  for (let b = 0; b < samples.length; b++) {
    const s = performance.now();
    for (let i = 0; i < BATCH; i++) sink += once();
    samples[b] = ((performance.now() - s) * 1000) / BATCH;
  }
  const elapsed = performance.now() - start;
  if (sink === 0) throw new Error("no decision selected a provider");
  samples.sort();
  const q = (p: number) => samples[Math.min(samples.length - 1, Math.floor(p * samples.length))]!;
  return { perSecond: (ITERATIONS / elapsed) * 1000, p50: q(0.5), p99: q(0.99) };
}

const fmt = (r: TRun) => `${Math.round(r.perSecond).toLocaleString("en-US").padStart(9)} decisions/s, p50 ${r.p50.toFixed(3)} µs, p99 ${r.p99.toFixed(3)} µs`;

/**
 * The target cases (3 and 10 candidates) decide on a routing state the data plane replaces every
 * refresh interval, as in production. The other two show the slower paths: an open breaker whose
 * "next attempt in Ns" depends on the time, so gates and scores run on every decision; and a
 * routing state replaced before every decision, so every decision also rebuilds what router-core
 * keeps per state (lookups, evaluation, records); and a telemetry gap, every candidate under the
 * stale penalty, whose stated age holds for a second.
 */
const CASES: { n: number; options: TDriverOptions; label: string; target: boolean }[] = [
  { n: 3, options: {}, label: "3 candidates", target: true },
  { n: 10, options: {}, label: "10 candidates", target: true },
  { n: 10, options: { openBreaker: true }, label: "10 candidates, one breaker open", target: false },
  { n: 10, options: { distinctStates: 16 }, label: "10 candidates, new routing state every decision", target: false },
  { n: 10, options: { staleMetrics: true }, label: "10 candidates, every metric stale (penalty)", target: false },
];
/**
 * Each case runs in a process of its own (this script again, with the case's index): V8 adapts
 * to a workload (inline caches, and allocation sites whose objects lived long get their objects
 * allocated in the old generation straight away), so a case run after another measures partly
 * the one before (bench/README.md, "Investigations").
 */
function runCase(index: number): Promise<TRun[]> {
  return new Promise((resolve, reject) => {
    const child = fork(fileURLToPath(import.meta.url), ["--case", String(index)], { stdio: ["ignore", "inherit", "inherit", "ipc"] });
    let runs: TRun[] | null = null;
    child.on("message", (m) => (runs = m as TRun[]));
    child.on("error", reject);
    child.on("exit", (code) => (code === 0 && runs !== null ? resolve(runs) : reject(new Error(`case ${index} exited with ${code}`))));
  });
}

async function main(): Promise<void> {
  const at = process.argv.indexOf("--case");
  if (at !== -1) {
    const { n, options } = CASES[Number(process.argv[at + 1])]!;
    const runs: TRun[] = [];
    for (let r = 0; r < RUNS; r++) runs.push(run(n, options));
    process.send!(runs);
    return;
  }
  const figures: TBenchFigure[] = [];
  for (const [index, { label, target }] of CASES.entries()) {
    const runs = await runCase(index);
    runs.sort((a, b) => b.perSecond - a.perSecond);
    const best = runs[0]!;
    const median = runs[Math.floor(runs.length / 2)]!;
    console.log(`${label}, ${RUNS} runs of ${ITERATIONS.toLocaleString("en-US")} (per decision, batches of ${BATCH}):`);
    console.log(`   best   ${fmt(best)}`);
    console.log(`   median ${fmt(median)}`);
    figures.push(
      { label: `${label}: decisions/s (best run)`, value: Math.round(best.perSecond), unit: "decisions/s", ...(target ? { target: "≥ 1,000,000" } : {}) },
      { label: `${label}: decisions/s (median run)`, value: Math.round(median.perSecond), unit: "decisions/s" },
      { label: `${label}: p50 per decision (median run)`, value: median.p50, unit: "µs" },
      { label: `${label}: p99 per decision (median run)`, value: median.p99, unit: "µs", ...(target ? { target: "< 5" } : {}) },
    );
  }
  writeBenchResult({
    name: "core",
    title: "router-core decide(), one core",
    command: "npm run bench:core",
    parameters: { iterations: ITERATIONS, runs: RUNS, warmup: WARMUP, batch: BATCH, cases: CASES.map((c) => c.label) },
    figures,
    notes: [
      "p50/p99 are over batch means (a timer read costs about as much as a decision); runs are ranked by throughput because the machine may be shared.",
      "Each case runs in a process of its own. The first two are the target cases: the routing state is replaced every 30 simulated seconds, as the data plane's refresh does. The others are the slower paths: one breaker open (its countdown is a timed gate outcome, reused for a second at a time), a new routing state before every decision (nothing kept per state is reused), and every metric stale under the penalty (the stated age in whole seconds, reused for a second at a time).",
    ],
  });
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
