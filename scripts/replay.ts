/**
 * `npm run replay`: the paper's section 8 evaluation (Tables 14 and 15) on router-core.
 *
 *   npm run replay -- [--scenarios outage,latency,...] [--policies static,failover,breaker,factor_list]
 *                     [--seed 42] [--factor-list draft.yaml] [--no-sensitivity]
 *                     [--sensitivity-scenarios latency,regional] [--out replay-output] [--threads 2]
 *
 * Runs are spread over worker threads (--threads, default one per core). Progress goes to stderr, tables to stdout; CSV, JSON and per-minute traces go under --out.
 */
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { availableParallelism } from "node:os";
import { join } from "node:path";
import { parseArgs } from "node:util";
import { parseFactorList } from "../router-core/policy/codec";
import type { TFactorList } from "../router-core/policy/schema";
import {
  POLICY_IDS,
  SCENARIOS,
  SCENARIO_IDS,
  SENSITIVITY_VARIANTS,
  formatDetails,
  formatTable14,
  formatTable15,
  DEFAULT_ROUTER_WIRING,
  REPLAY_PROVIDERS,
  latencyTradeoffNote,
  listing1,
  resultCsv,
  REPLAY_TRAFFIC,
  sensitivityCsv,
  sensitivityRows,
  staleTelemetryNote,
  traceCsv,
  type TResultCell,
  type TRunResult,
  type TScenarioId,
} from "../router-core/replay";
import { writeBenchResult } from "../bench/lib/bench-results";
import { runReplayJobs, type TReplayJob } from "./replay-jobs";

const DEFAULT_SENSITIVITY_SCENARIOS: readonly TScenarioId[] = ["latency"];

function pickList<T extends string>(name: string, value: string | undefined, known: readonly T[], fallback: readonly T[]): T[] {
  if (value === undefined) return [...fallback];
  const items = value.split(",").map((s) => s.trim()).filter((s) => s !== "");
  for (const item of items) {
    if (!known.includes(item as T)) throw new Error(`--${name}: unknown "${item}"; known: ${known.join(", ")}`);
  }
  return items as T[];
}

function loadFactorList(path: string | undefined): TFactorList {
  if (path === undefined) return listing1();
  const parsed = parseFactorList(readFileSync(path, "utf8"));
  if (!parsed.ok) throw new Error(`--factor-list ${path}:\n${parsed.errors.map((e) => `  ${e.path}: ${e.message}`).join("\n")}`);
  for (const w of parsed.warnings) process.stderr.write(`warning: ${path}: ${w}\n`);
  return parsed.value;
}

function progress(done: number, total: number, label: string): void {
  if (!process.stderr.isTTY && done < total) return;
  const width = 30;
  const filled = Math.round((done / total) * width);
  const line = `[${"#".repeat(filled)}${".".repeat(width - filled)}] ${done}/${total} ${label}`;
  process.stderr.write(process.stderr.isTTY ? `\r${line.padEnd(80)}` : `${line}\n`);
  if (done === total && process.stderr.isTTY) process.stderr.write("\n");
}

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: {
      scenarios: { type: "string" },
      policies: { type: "string" },
      seed: { type: "string", default: "42" },
      "factor-list": { type: "string" },
      "no-sensitivity": { type: "boolean", default: false },
      "sensitivity-scenarios": { type: "string" },
      out: { type: "string", default: "replay-output" },
      threads: { type: "string" },
    },
    strict: true,
  });
  const scenarios = pickList("scenarios", values.scenarios, SCENARIO_IDS, SCENARIO_IDS);
  const policies = pickList("policies", values.policies, POLICY_IDS, POLICY_IDS);
  const seed = Number(values.seed);
  if (!Number.isInteger(seed)) throw new Error(`--seed must be an integer, got ${values.seed}`);
  const factorList = loadFactorList(values["factor-list"]);
  const sensitivityScenarios = values["no-sensitivity"]
    ? []
    : pickList("sensitivity-scenarios", values["sensitivity-scenarios"], SCENARIO_IDS, DEFAULT_SENSITIVITY_SCENARIOS);
  const out = values.out;

  const started = performance.now();
  // The sensitivity baseline is the factor-list run itself; it is reused when already in the main grid.
  const jobs: TReplayJob[] = [];
  for (const scenario of scenarios) for (const policy of policies) jobs.push({ scenario, policy, variant: null });
  for (const scenario of sensitivityScenarios) {
    SENSITIVITY_VARIANTS.forEach((_, i) => {
      if (i > 0 || !(scenarios.includes(scenario) && policies.includes("factor_list"))) jobs.push({ scenario, policy: "factor_list", variant: i });
    });
  }
  const wanted = values.threads === undefined ? availableParallelism() : Number(values.threads);
  if (!Number.isInteger(wanted) || wanted < 1) throw new Error(`--threads must be a positive integer, got ${values.threads}`);
  const threads = Math.min(jobs.length, wanted);
  let finished = 0;
  const results = await runReplayJobs(jobs, { seed, factorList }, threads, (job) =>
    progress(++finished, jobs.length, job.variant === null ? `${job.scenario} × ${job.policy}` : `sensitivity ${SENSITIVITY_VARIANTS[job.variant]!.id} × ${job.scenario}`),
  );

  const cells: TResultCell[] = [];
  const runs = new Map<string, TRunResult>();
  const sensitivityRuns: TRunResult[][] = SENSITIVITY_VARIANTS.map(() => []);
  jobs.forEach((job, i) => {
    const result = results[i]!;
    if (job.variant === null) {
      runs.set(`${job.scenario}/${job.policy}`, result);
      cells.push({ scenario: job.scenario, scenarioLabel: SCENARIOS[job.scenario].label, policy: job.policy, metrics: result.metrics });
    }
  });
  for (const scenario of sensitivityScenarios) {
    SENSITIVITY_VARIANTS.forEach((_, v) => {
      const i = jobs.findIndex((j) => j.scenario === scenario && j.variant === v);
      sensitivityRuns[v]!.push(i >= 0 ? results[i]! : runs.get(`${scenario}/factor_list`)!);
    });
  }
  const done = jobs.length;
  const sensitivity = sensitivityScenarios.length > 0 ? sensitivityRows(SENSITIVITY_VARIANTS, sensitivityRuns) : null;
  const elapsedMs = performance.now() - started;

  mkdirSync(join(out, "trace"), { recursive: true });
  writeFileSync(join(out, "results.csv"), resultCsv(cells));
  for (const [key, result] of runs) writeFileSync(join(out, "trace", `${key.replace("/", "_")}.csv`), traceCsv(result.trace));
  if (sensitivity) writeFileSync(join(out, "sensitivity.csv"), sensitivityCsv(sensitivity));
  writeFileSync(
    join(out, "results.json"),
    JSON.stringify(
      {
        seed,
        factorList,
        elapsedMs: Math.round(elapsedMs),
        results: cells.map((c) => ({ ...c, trace: runs.get(`${c.scenario}/${c.policy}`)?.trace ?? [] })),
        sensitivity: sensitivity && { scenarios: sensitivityScenarios, rows: sensitivity },
      },
      null,
      2,
    ),
  );

  const print = (s: string) => process.stdout.write(`${s}\n`);
  print(`Table 14 (synthetic replay, seed ${seed}, ${REPLAY_TRAFFIC.minutes * REPLAY_TRAFFIC.requestsPerMinute} requests per scenario and policy): success rate / degraded minutes`);
  print(formatTable14(cells, policies));
  print("");
  print(formatDetails(cells));
  if (sensitivity) {
    print("");
    print(`Table 15 (factor list on ${sensitivityScenarios.join(", ")}; indices relative to scen_01_baseline = 100)`);
    print(formatTable15(sensitivity));
  }
  const stale = SCENARIOS.stale;
  const notes = [
    latencyTradeoffNote(cells, sensitivity),
    staleTelemetryNote(cells, {
      degradedFrom: stale.degradedFrom,
      delaySeconds: stale.telemetryDelaySeconds,
      bucketSeconds: DEFAULT_ROUTER_WIRING.bucketSeconds,
      maxShiftPerMinute: factorList.safety.max_traffic_shift_per_minute,
      probeShare: factorList.safety.primary_probe_share,
      providers: REPLAY_PROVIDERS.length,
    }),
  ];
  for (const note of notes) {
    if (note === null) continue;
    print("");
    print(note);
  }
  print("");
  print(`${done} runs in ${(elapsedMs / 1000).toFixed(2)} s wall on ${threads} thread(s); files in ${out}/`);

  // Table 14 and 15 as bench-results/replay.json, for BENCHMARKS.md.
  const pct = (x: number) => Math.round(x * 10_000) / 100;
  const r1 = (x: number | null) => (x === null ? null : Math.round(x * 10) / 10);
  const flag = (name: string, v: string | undefined) => (v === undefined ? "" : ` --${name} ${v}`);
  writeBenchResult({
    name: "replay",
    title: "Replay evaluation (Tables 14 and 15)",
    command: `npm run replay --${flag("scenarios", values.scenarios)}${flag("policies", values.policies)} --seed ${seed}${flag("factor-list", values["factor-list"])}${values["no-sensitivity"] ? " --no-sensitivity" : ""}${flag("sensitivity-scenarios", values["sensitivity-scenarios"])}`,
    parameters: { seed, scenarios, policies, requestsPerScenario: REPLAY_TRAFFIC.minutes * REPLAY_TRAFFIC.requestsPerMinute, sensitivityScenarios, threads, factorList: values["factor-list"] ?? "listing1" },
    figures: [
      { label: "runs", value: done, unit: "runs" },
      { label: "wall time", value: Math.round(elapsedMs) / 1000, unit: "s" },
    ],
    tables: [
      {
        title: "Table 14: success rate (%) and degraded minutes per scenario and policy",
        columns: ["scenario", "policy", "success %", "degraded min", "p95 ms", "switches", "oscillations", "shift-away min"],
        rows: cells.map((c) => [c.scenarioLabel, c.policy, pct(c.metrics.successRate), c.metrics.degradedMinutes, r1(c.metrics.p95Ms), c.metrics.switches, c.metrics.oscillations, r1(c.metrics.shiftAwayMinutes)]),
      },
      ...(sensitivity
        ? [
            {
              title: `Table 15: factor list on ${sensitivityScenarios.join(", ")}, indices relative to the baseline variant = 100`,
              columns: ["variant", "parameter", "completion idx", "failed idx", "p95 idx", "switches", "oscillations", "shift-away min"],
              rows: sensitivity.map((r) => [r.id, r.parameter, r1(r.completionIdx), r1(r.failedIdx), r1(r.p95Idx), r.switches, r.oscillations, r1(r.shiftAwayMinutes)]),
            },
          ]
        : []),
    ],
    notes: notes.filter((n): n is string => n !== null),
  });
}

main().catch((e: unknown) => {
  process.stderr.write(`${e instanceof Error ? e.message : String(e)}\n`);
  process.exit(1);
});
