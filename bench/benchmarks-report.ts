import { existsSync, readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { parseArgs } from "node:util";
import { benchResultsDir, cpuKind, otherCpusDir, readBenchResults, type TBenchResult } from "./lib/bench-results";

// `npm run benchmarks:report [-- --check]`: BENCHMARKS.md from bench-results/*.json. Every number
// in it comes from a result file a benchmark wrote; a benchmark with no file yet says so.
// --check exits 1 when BENCHMARKS.md differs from what the current results render to.

export type TBenchmark = {
  title: string;
  /** How to run it, one command per line. */
  commands: string[];
  what: string;
  /** Names of the result files (bench-results/<name>.json) it writes. */
  results: string[];
};

/** Every benchmark in the project, in the order BENCHMARKS.md lists them. */
export const BENCHMARKS: readonly TBenchmark[] = [
  {
    title: "Decision engine (router-core)",
    commands: ["npm run bench:core"],
    what: "Decisions per second and per-decision latency of router-core's decide() with full explanation records, 3 and 10 candidates, on one core (bench/core).",
    results: ["core"],
  },
  {
    title: "Decide over HTTP",
    commands: ["npm run bench:api -- --duration 15 --connections 128"],
    what: "server.ts in data-plane-only mode (telemetry, controller and gateway running) in its own process on 127.0.0.1, sync durability (every answer committed first): first the reference, the issue's yardstick of a bare node:http handler with a group-committed insert (bench/api/bench-api-reference.ts), on the same database and load, so decide can be read against what this machine does at the time of the run; then decide in a closed loop with 128 connections (the raw-socket generator of bench/lib/closed-loop-load.ts, in a process of its own), then the row reference at the same concurrency: the same bare handler writing decide's own row (the newest decide wrote, with a new id, time, region and requestId) through the product's decision log, which separates what the decision row costs Postgres from what the rest of decide costs, then shorter closed loops at 16, 24, 32, 48 and 64 connections, each after 2 s of warm-up (decide and the reference each), for throughput against p99 and the highest throughput whose p99 is under 20 ms, then open-loop arrivals at fixed rates of 30% and 60% of that maximum, each after 2 s of warm-up at its rate (bench/lib/open-loop-load.ts, in a process of its own; latency from each request's due time; the reference is run at the same rates), three rounds of decide and the reference in alternation (`--fixed-rounds`; the p99 ratio is the median of the rounds' ratios, as one phase's p99 on this machine moves by 2× between runs), then outcome ingestion; afterwards every acknowledged decision and recorded outcome must be a row. Decide answers compactly (provider, decision id, reason code, policy version, fallback, failover order), as a caller gets it by default. The database is the product's default embedded PostgreSQL unless `database` says otherwise. Where the server's CPU goes per stage of the decide path (`--cpu-prof` and bench/api/profile-summary.ts), before and after the compact answer: bench/api/README.md.",
    results: ["api"],
  },
  {
    title: "Gateway vs Portkey",
    commands: ["npm run bench:gateway"],
    what: "The execute path against Portkey's open-source gateway on the same mock providers: overhead and throughput side by side. The upstream alone (direct), Portkey and Switchyard are measured back to back in each of three rounds, in alternating order, and the ratios are taken per round: this machine's speed drifts by a third within minutes. Figures are the rounds' medians.",
    results: ["gateway"],
  },
  {
    title: "Execute queue shared in Postgres",
    commands: ["npm run bench:queue"],
    what: "Execute mode's degradation queue (execute_job) with three queue instances on their own pools, as three server processes would hold them: enqueue rate, drain rate with no-op runs claimed by all three at once (FOR UPDATE SKIP LOCKED), and the delay from a job falling due to its run starting with the 500 ms idle poll. Every job must run exactly once. Reference: select 1 round trips in the same run.",
    results: ["queue"],
  },
  {
    title: "Cluster call quota on the decide path",
    commands: ["npm run bench:quota"],
    what: "What counting a provider's call quota for the cluster (lib/dataplane/quota/cluster-quota.ts) adds to a decision: router-core's decide with 3 candidates alone (the reference), then followed by the in-process spend for a provider with a requests and a tokens quota, and for a provider without one, interleaved run by run; medians. Leases go to Postgres in the background.",
    results: ["quota"],
  },
  {
    title: "Replay evaluation (paper section 8, Tables 14 and 15)",
    commands: ["npm run replay"],
    what: "Four routing policies over six scenarios on router-core's simulator: completion, degraded minutes, shifts; and the sensitivity table.",
    results: ["replay"],
  },
  {
    title: "Scale: 10 million decisions",
    commands: [
      "npm run seed:scale -- --decisions 10000000 --days 7",
      "npm run bench:scale",
      "npm run seed:scale -- --decisions 10000000 --days 7 --store clickhouse",
      "npm run bench:scale -- --store clickhouse --result-name scale-ch-10m",
    ],
    what: "A week of simulated traffic (the product's own controller and decide(), a degradation episode, outcomes for about 95% of decisions) in the daily partitions; then p50/p95/p99 of every console read model in process (drilldown, each decision-list filter on page 1 and a deep keyset page, 24 h and 7 d share charts, overview, why, shadow, providers) against a 200 ms p95 target, and decide throughput with that table in place. The same at 1 M (scale-1m). The scale-ch results are ClickHouse mode (SWITCHYARD_DECISION_STORE=clickhouse): decisions and outcomes in ClickHouse (an embedded chdb), the read models through the console's ClickHouse reads, no decide step. See bench/scale/README.md.",
    results: ["scale", "api-scale", "scale-1m", "api-scale-1m", "scale-ch-10m", "scale-ch-1m"],
  },
  {
    title: "Console over HTTP",
    commands: ["npm run seed:scale -- --decisions 1000000 --days 7", "npm run bench:console"],
    what: "Every console page and console/control-plane GET route on the production server, signed in, 20 requests each: no request may take 500 ms or more with a million decisions in the table.",
    results: ["console"],
  },
  {
    title: "Database outage under load",
    commands: ["npm run chaos:db-outage"],
    what: "Two instances on one Postgres under decide and outcome load; Postgres stopped for 30 s: decides answered from cache, errors by status, acknowledged decisions missing afterwards (must be 0), time to recovery.",
    results: ["chaos-db-outage"],
  },
  {
    title: "Controller leader killed",
    commands: ["npm run chaos:leader-kill"],
    what: "The controller's leader instance is killed under load: another takes over and shares keep moving.",
    results: ["chaos-leader-kill"],
  },
  {
    title: "App instance killed mid-load",
    commands: ["npm run chaos:instance-kill"],
    what: "One of two instances is killed under load: no acknowledged decision may be lost.",
    results: ["chaos-instance-kill"],
  },
  {
    title: "Override propagation",
    commands: ["npm run chaos:propagation"],
    what: "Kill switch and provider kill set through instance 1: time until instance 2's decisions reflect them (target p99 under 1 s).",
    results: ["chaos-propagation"],
  },
  {
    title: "Local evaluation (client process)",
    commands: ["npm run bench:local"],
    what: "@switchyard/client's LocalRouter in one process against server.ts (data plane only, a database of its own): decisions per second with full router-core records handed to the client's bounded buffer, next to router-core's decide() alone on the same snapshot; then the time from an operator pin committed with its NOTIFY until the client's local decisions follow it, over 20 pins.",
    results: ["local"],
  },
  {
    title: "Fuzzing",
    commands: ["npm run fuzz"],
    what: "10,000+ malformed, oversized, wrongly typed and wrongly encoded requests at every endpoint: no 500, no rows written for rejected requests, memory flat.",
    results: ["fuzz"],
  },
  {
    title: "Security probe",
    commands: ["npm run security:probe"],
    what: "The attack review's findings (security issue items 1-17) tried against a production-mode instance on a fresh database: each attack, what a closed hole looks like, and what was observed. Stalls are /health's added latency against the same time just before the attack, on this machine.",
    results: ["security-probe"],
  },
];

const fmtNumber = (v: number | null): string => {
  if (v === null) return "–";
  if (Number.isInteger(v)) return v.toLocaleString("en-US");
  const abs = Math.abs(v);
  return abs >= 100 ? Math.round(v).toLocaleString("en-US") : abs >= 1 ? v.toFixed(1) : v.toPrecision(3);
};

const cell = (v: string | number | boolean | null): string => (typeof v === "number" ? fmtNumber(v) : v === null ? "–" : String(v)).replaceAll("|", "\\|");

const when = (r: TBenchResult): string =>
  `${r.date.replace("T", " ").slice(0, 16)} UTC, commit \`${r.commit.slice(0, 12)}${r.commit.endsWith("+dirty") ? "+dirty" : ""}\``;

function machine(r: TBenchResult): string {
  const m = r.machine;
  return `${m.cores} cores (${m.cpuModel}), ${m.memoryGiB} GiB RAM, Node ${m.node}, ${m.platform}${m.loadAverage !== undefined ? `, load average ${m.loadAverage} at the end of the run` : ""}`;
}

function renderResult(r: TBenchResult): string[] {
  const out: string[] = [];
  out.push(`**${r.title}** — \`${r.name}.json\`, ${when(r)}, ${machine(r)}.`);
  out.push("", `Command: \`${r.command}\``);
  const params = Object.entries(r.parameters);
  if (params.length > 0) out.push("", `Parameters: ${params.map(([k, v]) => `${k} = ${typeof v === "string" ? v : JSON.stringify(v)}`).join(", ")}.`);
  if (r.figures.length > 0) {
    out.push("", "| figure | value | target |", "| --- | ---: | --- |");
    for (const f of r.figures) out.push(`| ${cell(f.label)} | ${fmtNumber(f.value)} ${cell(f.unit)} | ${f.target ? cell(f.target) : ""} |`);
  }
  for (const t of r.tables ?? []) {
    out.push("", `${t.title}:`, "", `| ${t.columns.map(cell).join(" | ")} |`, `| ${t.columns.map((_, i) => (i === 0 ? "---" : "---:")).join(" | ")} |`);
    for (const row of t.rows) out.push(`| ${row.map(cell).join(" | ")} |`);
  }
  if (r.invariants && r.invariants.length > 0) {
    out.push("", "| invariant | holds | detail |", "| --- | --- | --- |");
    for (const i of r.invariants) out.push(`| ${cell(i.label)} | ${i.ok ? "yes" : "**NO**"} | ${cell(i.detail ?? "")} |`);
  }
  for (const n of r.notes ?? []) out.push("", `Note: ${n}`);
  return out;
}

/**
 * The same benchmark's last run on another kind of CPU, its figures beside this run's: the
 * machine kind has come with AMD and Intel CPUs of different speeds, and a target is read on each.
 * Figures only one of the two runs has are listed with a dash for the other.
 */
function renderOtherCpu(r: TBenchResult, o: TBenchResult): string[] {
  const mine = new Map(r.figures.map((f) => [f.label, f]));
  const theirs = new Map(o.figures.map((f) => [f.label, f]));
  const labels = [...mine.keys(), ...[...theirs.keys()].filter((l) => !mine.has(l))];
  const value = (f: TBenchResult["figures"][number] | undefined): string => (f === undefined ? "–" : `${fmtNumber(f.value)} ${cell(f.unit)}`);
  const out = [
    `The last run of \`${r.name}\` on ${o.machine.cpuModel} (\`${cpuKind(o.machine.cpuModel)}\`): ${when(o)}, load average ${o.machine.loadAverage ?? "–"} at its end; command \`${o.command}\`.`,
    "",
    `| figure | ${cell(cpuKind(r.machine.cpuModel))} (above) | ${cell(cpuKind(o.machine.cpuModel))} | target |`,
    "| --- | ---: | ---: | --- |",
  ];
  // A target computed from its own run (a multiple of that run's Portkey) is shown for each run where they differ.
  const target = (l: string): string => {
    const [a, b] = [mine.get(l)?.target, theirs.get(l)?.target];
    return cell(a === undefined || b === undefined || a === b ? (a ?? b ?? "") : `${a}; ${cpuKind(o.machine.cpuModel)}: ${b}`);
  };
  for (const l of labels) out.push(`| ${cell(l)} | ${value(mine.get(l))} | ${value(theirs.get(l))} | ${target(l)} |`);
  for (const i of o.invariants ?? []) if (!i.ok) out.push("", `Invariant not held on that run: ${cell(i.label)} (${cell(i.detail ?? "")}).`);
  return out;
}

/** BENCHMARKS.md for these results: how to run each benchmark, then its latest figures (or that there are none). */
export function renderBenchmarks(benchmarks: readonly TBenchmark[], results: readonly TBenchResult[], otherCpus: readonly TBenchResult[] = []): string {
  const byName = new Map(results.map((r) => [r.name, r]));
  const listed = new Set(benchmarks.flatMap((b) => b.results));
  const out: string[] = [
    "# Benchmarks",
    "",
    "Generated by `npm run benchmarks:report` from `bench-results/*.json`; do not edit by hand. Each benchmark",
    "writes its own result file when it runs (`bench/lib/bench-results.ts`), with the date, the commit and",
    "the machine it ran on, so every number below comes from a run, and rerunning a command and then the report",
    "replaces it. Speeds are printed against their targets, never asserted; the invariants (lost decisions, 500s)",
    "make a benchmark exit non-zero. The machine kind has come with AMD EPYC and Intel Xeon CPUs of different",
    "speeds: where a benchmark's last run on the other kind is kept (`bench-results/other-cpus/`, moved there",
    "when a run on another kind replaces it), its figures are shown beside the latest run's.",
    "",
  ];
  for (const b of benchmarks) {
    out.push(`## ${b.title}`, "", b.what, "", "```sh", ...b.commands, "```", "");
    const found = b.results.map((n) => byName.get(n)).filter((r): r is TBenchResult => r !== undefined);
    if (found.length === 0) out.push(`No results yet (\`bench-results/${b.results[0]}.json\` is written by the command above).`, "");
    for (const r of found) {
      out.push(...renderResult(r), "");
      const kind = cpuKind(r.machine.cpuModel);
      for (const o of otherCpus) if (o.name === r.name && cpuKind(o.machine.cpuModel) !== kind) out.push(...renderOtherCpu(r, o), "");
    }
  }
  const others = results.filter((r) => !listed.has(r.name));
  if (others.length > 0) {
    out.push("## Other results", "");
    for (const r of others) out.push(...renderResult(r), "");
  }
  return `${out.join("\n").trimEnd()}\n`;
}

async function main(): Promise<number> {
  const { values } = parseArgs({ options: { check: { type: "boolean", default: false } } });
  const { results, invalid } = readBenchResults(benchResultsDir());
  const other = readBenchResults(otherCpusDir());
  for (const i of invalid) process.stderr.write(`benchmarks:report: bench-results/${i.file} is not a benchmark result: ${i.error}\n`);
  for (const i of other.invalid) process.stderr.write(`benchmarks:report: bench-results/other-cpus/${i.file} is not a benchmark result: ${i.error}\n`);
  invalid.push(...other.invalid);
  const text = renderBenchmarks(BENCHMARKS, results, other.results);
  const file = path.join(path.dirname(benchResultsDir()), "BENCHMARKS.md");
  if (values.check) {
    if ((existsSync(file) ? readFileSync(file, "utf8") : "") !== text) {
      process.stderr.write("benchmarks:report: BENCHMARKS.md is out of date; run npm run benchmarks:report\n");
      return 1;
    }
    return invalid.length > 0 ? 1 : 0;
  }
  writeFileSync(file, text);
  process.stdout.write(`wrote BENCHMARKS.md from ${results.length} result file(s)\n`);
  return invalid.length > 0 ? 1 : 0;
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  main().then(
    (code) => process.exit(code),
    (err: unknown) => {
      process.stderr.write(`benchmarks:report: ${err instanceof Error ? err.message : String(err)}\n`);
      process.exit(1);
    },
  );
}
