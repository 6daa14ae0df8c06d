/**
 * `npm run replay`: the paper's section 8 (docs/references.md) evaluation (Tables 14 and 15) on router-core.
 *
 *   npm run replay -- [--scenarios outage,latency,...] [--policies static,failover,breaker,factor_list]
 *                     [--seed 42] [--factor-list draft.yaml] [--no-sensitivity]
 *                     [--sensitivity-scenarios latency,regional] [--no-failback] [--out replay-output] [--threads 2]
 *
 * Runs are spread over worker threads (--threads, default one per core). Progress goes to stderr, tables to stdout; CSV, JSON and per-minute traces go under --out.
 */
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { availableParallelism } from "node:os";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
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
  FAILBACK_MINUTES,
  FAILBACK_RATES,
  FAILBACK_SHARE,
  failbackRow,
  formatFailbackTable,
  REPLAY_PROVIDERS,
  latencyTradeoffNote,
  listing1,
  resultCsv,
  REPLAY_TRAFFIC,
  sensitivityCsv,
  sensitivityRows,
  staleTelemetryNote,
  traceCsv,
  type TFailbackRow,
  type TResultCell,
  type TRunResult,
  type TScenarioId,
} from "../router-core/replay";
import { runReplayJobs, type TReplayJob } from "./replay-jobs";

const DEFAULT_SENSITIVITY_SCENARIOS: readonly TScenarioId[] = ["latency"];

function pickList<T extends string>(name: string, value: string | undefined, known: readonly T[], fallback: readonly T[]): T[] {
  if (value === undefined) return [...fallback];
  const items = value
    .split(",")
    .map((s) => s.trim())
    .filter((s) => s !== "");
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

export type TReplayOptions = {
  values: {
    scenarios?: string;
    policies?: string;
    "factor-list"?: string;
    "no-sensitivity"?: boolean;
    "sensitivity-scenarios"?: string;
    "no-failback"?: boolean;
    threads?: string;
  };
  scenarios: TScenarioId[];
  policies: (typeof POLICY_IDS)[number][];
  seed: number;
  factorList: TFactorList;
  sensitivityScenarios: TScenarioId[];
  /** Time to failback at lower volumes (failback.ts), unless --no-failback. */
  failback: boolean;
  out: string;
};
type TSensitivity = ReturnType<typeof sensitivityRows> | null;
export type TReplayOutcome = {
  cells: TResultCell[];
  runs: Map<string, TRunResult>;
  sensitivity: TSensitivity;
  failback: TFailbackRow[];
  done: number;
  threads: number;
  elapsedMs: number;
};

export function readOptions(): TReplayOptions {
  const { values } = parseArgs({
    options: {
      scenarios: { type: "string" },
      policies: { type: "string" },
      seed: { type: "string", default: "42" },
      "factor-list": { type: "string" },
      "no-sensitivity": { type: "boolean", default: false },
      "sensitivity-scenarios": { type: "string" },
      "no-failback": { type: "boolean", default: false },
      out: { type: "string", default: "replay-output" },
      threads: { type: "string" },
    },
    strict: true,
  });
  const scenarios = pickList("scenarios", values.scenarios, SCENARIO_IDS, SCENARIO_IDS);
  const policies = pickList("policies", values.policies, POLICY_IDS, POLICY_IDS);
  const seed = Number(values.seed);
  if (!Number.isInteger(seed)) throw new Error(`--seed must be an integer, got ${values.seed}`);
  return {
    values,
    scenarios,
    policies,
    seed,
    factorList: loadFactorList(values["factor-list"]),
    sensitivityScenarios: values["no-sensitivity"]
      ? []
      : pickList("sensitivity-scenarios", values["sensitivity-scenarios"], SCENARIO_IDS, DEFAULT_SENSITIVITY_SCENARIOS),
    failback: !values["no-failback"],
    out: values.out,
  };
}

/** Every scenario × policy run, then the sensitivity variants; the baseline variant is the factor-list run itself, reused when already in the main grid. */
function replayJobs(o: TReplayOptions): TReplayJob[] {
  const jobs: TReplayJob[] = [];
  for (const scenario of o.scenarios) for (const policy of o.policies) jobs.push({ scenario, policy, variant: null });
  for (const scenario of o.sensitivityScenarios) {
    SENSITIVITY_VARIANTS.forEach((_, i) => {
      if (i > 0 || !(o.scenarios.includes(scenario) && o.policies.includes("factor_list"))) jobs.push({ scenario, policy: "factor_list", variant: i });
    });
  }
  if (o.failback)
    for (const scenario of o.scenarios) FAILBACK_RATES.forEach((_, i) => jobs.push({ scenario, policy: "factor_list", variant: null, failback: i }));
  return jobs;
}

/** Runs the jobs on worker threads and sorts the results into the main grid and the sensitivity rows. */
export async function runReplay(o: TReplayOptions): Promise<TReplayOutcome> {
  const started = performance.now();
  const jobs = replayJobs(o);
  const wanted = o.values.threads === undefined ? availableParallelism() : Number(o.values.threads);
  if (!Number.isInteger(wanted) || wanted < 1) throw new Error(`--threads must be a positive integer, got ${o.values.threads}`);
  const threads = Math.min(jobs.length, wanted);
  let finished = 0;
  const results = await runReplayJobs(jobs, { seed: o.seed, factorList: o.factorList }, threads, (job) =>
    progress(
      ++finished,
      jobs.length,
      job.failback !== undefined
        ? `failback ${job.scenario} at ${FAILBACK_RATES[job.failback]!.label}`
        : job.variant === null
          ? `${job.scenario} × ${job.policy}`
          : `sensitivity ${SENSITIVITY_VARIANTS[job.variant]!.id} × ${job.scenario}`,
    ),
  );
  const cells: TResultCell[] = [];
  const runs = new Map<string, TRunResult>();
  const sensitivityRuns: TRunResult[][] = SENSITIVITY_VARIANTS.map(() => []);
  const failback: TFailbackRow[] = [];
  jobs.forEach((job, i) => {
    const result = results[i]!;
    if (job.failback !== undefined) {
      failback.push(failbackRow(job.scenario, FAILBACK_RATES[job.failback]!, result));
    } else if (job.variant === null) {
      runs.set(`${job.scenario}/${job.policy}`, result);
      cells.push({ scenario: job.scenario, scenarioLabel: SCENARIOS[job.scenario].label, policy: job.policy, metrics: result.metrics });
    }
  });
  for (const scenario of o.sensitivityScenarios) {
    SENSITIVITY_VARIANTS.forEach((_, v) => {
      const i = jobs.findIndex((j) => j.scenario === scenario && j.variant === v);
      sensitivityRuns[v]!.push(i >= 0 ? results[i]! : runs.get(`${scenario}/factor_list`)!);
    });
  }
  const sensitivity = o.sensitivityScenarios.length > 0 ? sensitivityRows(SENSITIVITY_VARIANTS, sensitivityRuns) : null;
  return { cells, runs, sensitivity, failback, done: jobs.length, threads, elapsedMs: performance.now() - started };
}

/** CSV, JSON and per-minute traces under --out. */
export function writeOutputFiles(o: TReplayOptions, r: TReplayOutcome): void {
  const { out } = o;
  mkdirSync(join(out, "trace"), { recursive: true });
  writeFileSync(join(out, "results.csv"), resultCsv(r.cells));
  for (const [key, result] of r.runs) writeFileSync(join(out, "trace", `${key.replace("/", "_")}.csv`), traceCsv(result.trace));
  if (r.sensitivity) writeFileSync(join(out, "sensitivity.csv"), sensitivityCsv(r.sensitivity));
  writeFileSync(
    join(out, "results.json"),
    JSON.stringify(
      {
        seed: o.seed,
        factorList: o.factorList,
        elapsedMs: Math.round(r.elapsedMs),
        results: r.cells.map((c) => ({ ...c, trace: r.runs.get(`${c.scenario}/${c.policy}`)?.trace ?? [] })),
        sensitivity: r.sensitivity && { scenarios: o.sensitivityScenarios, rows: r.sensitivity },
      },
      null,
      2,
    ),
  );
}

/** Tables 14 and 15 and the notes on stdout; returns the notes for the result file. */
export function printTables(o: TReplayOptions, r: TReplayOutcome): string[] {
  const print = (s: string) => process.stdout.write(`${s}\n`);
  print(
    `Table 14 (synthetic replay, seed ${o.seed}, ${REPLAY_TRAFFIC.minutes * REPLAY_TRAFFIC.requestsPerMinute} requests per scenario and policy): success rate / degraded minutes`,
  );
  print(formatTable14(r.cells, o.policies));
  print("");
  print(formatDetails(r.cells));
  if (r.sensitivity) {
    print("");
    print(`Table 15 (factor list on ${o.sensitivityScenarios.join(", ")}; indices relative to scen_01_baseline = 100)`);
    print(formatTable15(r.sensitivity));
  }
  if (r.failback.length > 0) {
    print("");
    print(
      `Time to failback (factor list, ${FAILBACK_MINUTES} min runs, degradation as in Table 14): minutes from its end until A's planned share in the region is back at ${FAILBACK_SHARE * 100}% or more ("—": A never left; "never": not within the run)`,
    );
    print(formatFailbackTable(r.failback));
  }
  const stale = SCENARIOS.stale;
  const notes = [
    latencyTradeoffNote(r.cells, r.sensitivity),
    staleTelemetryNote(r.cells, {
      degradedFrom: stale.degradedFrom,
      delaySeconds: stale.telemetryDelaySeconds,
      bucketSeconds: DEFAULT_ROUTER_WIRING.bucketSeconds,
      maxShiftPerMinute: o.factorList.safety.max_traffic_shift_per_minute,
      probeShare: o.factorList.safety.primary_probe_share,
      providers: REPLAY_PROVIDERS.length,
    }),
  ];
  for (const note of notes) {
    if (note === null) continue;
    print("");
    print(note);
  }
  print("");
  print(`${r.done} runs in ${(r.elapsedMs / 1000).toFixed(2)} s wall on ${r.threads} thread(s); files in ${o.out}/`);
  return notes.filter((n): n is string => n !== null);
}

async function main(): Promise<void> {
  const o = readOptions();
  const r = await runReplay(o);
  writeOutputFiles(o, r);
  printTables(o, r);
}

// `npm run bench:replay` imports this module to record the same run in bench-results/: only the
// command line runs main().
if (import.meta.url === pathToFileURL(process.argv[1] ?? "").href) {
  main().catch((e: unknown) => {
    process.stderr.write(`${e instanceof Error ? e.message : String(e)}\n`);
    process.exit(1);
  });
}
