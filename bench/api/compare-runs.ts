import { readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { parseArgs } from "node:util";
import { ZBenchResult, type TBenchResult, type TBenchTable } from "../lib/bench-results";
import { summarise } from "./profile-summary";

/**
 * `npx tsx bench/api/compare-runs.ts --before <result.json> --after <result.json> [--into <result.json>] [--profile-before
 * <file.cpuprofile> --decides-before N --root-before DIR] [--profile-after … --decides-after N --root-after DIR] [--note "…"]`:
 * puts a before/after table of two bench:api runs (run back to back, each against its own reference)
 * and, given their `--cpu-prof` profiles, the per-stage summary of both into the after result's
 * tables (or another result's, --into), so `npm run benchmarks:report` shows them beside its
 * figures. That file is rewritten in place; a table of the same title is replaced.
 */

/** The figures compared, by label; `#n` picks the n-th fixed rate (labels name the rate, which differs between runs). */
const ROWS: Array<[string, RegExp]> = [
  ["decisions/s, closed loop", /^decisions\/s$/],
  ["reference inserts/s, closed loop", /^reference: bare node:http \+ group-committed insert, inserts\/s$/],
  ["decide throughput as a share of the reference's", /^decide throughput as a share of the reference's$/],
  ["latency p50", /^latency p50$/],
  ["latency p99", /^latency p99$/],
  ["reference latency p99", /^reference latency p99$/],
  ["server CPU per decide", /^server CPU per decide$/],
  ["reference server CPU per insert", /^reference server CPU per insert$/],
  ["Postgres CPU per decide", /^Postgres CPU per decide \(every Postgres process\)$/],
  ["reference Postgres CPU per insert", /^reference Postgres CPU per insert$/],
  ["load generator CPU per decide", /^load generator CPU per decide$/],
  ["closed loop: group-commit transaction p99", /^closed loop: group-commit transaction p99$/],
  ["lower fixed rate (30% of decide's maximum)", /^latency p99 at a fixed (\d+)\/s/],
  ["lower fixed rate: decide p99", /^latency p99 at a fixed \d+\/s/],
  ["lower fixed rate: reference p99", /^reference latency p99 at a fixed \d+\/s/],
  ["lower fixed rate: server CPU per decide", /^server CPU per decide at a fixed \d+\/s/],
  ["lower fixed rate: Postgres CPU per decide", /^Postgres CPU per decide at a fixed \d+\/s/],
  ["higher fixed rate (60% of decide's maximum)", /^latency p99 at a fixed (\d+)\/s/],
  ["higher fixed rate: decide p99", /^latency p99 at a fixed \d+\/s/],
  ["higher fixed rate: reference p99", /^reference latency p99 at a fixed \d+\/s/],
  ["higher fixed rate: server CPU per decide", /^server CPU per decide at a fixed \d+\/s/],
  ["higher fixed rate: Postgres CPU per decide", /^Postgres CPU per decide at a fixed \d+\/s/],
];

function read(file: string): TBenchResult {
  return ZBenchResult.parse(JSON.parse(readFileSync(file, "utf8")));
}

/** A row's cell: the figure's value and unit (for the rate rows, the rate the label names). */
function cell(r: TBenchResult, name: string, re: RegExp): string | number | null {
  const matches = r.figures.filter((f) => re.test(f.label));
  const f = matches[name.startsWith("higher") ? 1 : 0];
  if (!f) return null;
  const rate = re.exec(f.label)?.[1];
  if (rate !== undefined) return `${rate}/s`;
  return f.value === null ? null : `${f.value} ${f.unit}`;
}

function comparison(before: TBenchResult, after: TBenchResult): TBenchTable {
  const load = (r: TBenchResult) => (r.machine.loadAverage === undefined ? "" : `, load ${r.machine.loadAverage} at its end`);
  // A git commit by its short hash; anything else (a described build) as it is.
  const commit = (r: TBenchResult) => (/^[0-9a-f]{40}/.test(r.commit) ? r.commit.slice(0, 7) : r.commit);
  return {
    title: `bench:api before and after, back to back on one machine (${after.machine.cpuModel}): before = ${commit(before)}${load(before)}; after = ${commit(after)}${load(after)}`,
    columns: ["figure", "before", "after"],
    rows: ROWS.map(([name, re]) => [name, cell(before, name, re), cell(after, name, re)]),
  };
}

function profileTable(
  before: { file: string; decides: number; root: string } | null,
  after: { file: string; decides: number; root: string } | null,
): TBenchTable | null {
  const sum = (p: typeof before) => (p ? summarise(JSON.parse(readFileSync(p.file, "utf8")), p.root, p.decides, 0) : null);
  const b = sum(before);
  const a = sum(after);
  if (!b && !a) return null;
  const stages = [...new Set([...(b?.stages ?? []), ...(a?.stages ?? [])].map((s) => s.stage))];
  const us = (s: ReturnType<typeof sum>, stage: string) => {
    const x = s?.stages.find((y) => y.stage === stage);
    return x?.usPerDecide == null ? null : Math.round(x.usPerDecide * 10) / 10;
  };
  const share = (s: ReturnType<typeof sum>, stage: string) => {
    const x = s?.stages.find((y) => y.stage === stage);
    return x ? `${(100 * x.share).toFixed(1)}%` : null;
  };
  const rows: TBenchTable["rows"] = stages.map((stage) => [stage, us(b, stage), share(b, stage), us(a, stage), share(a, stage)]);
  const total = (s: ReturnType<typeof sum>, decides: number | undefined) => (s && decides ? Math.round((s.busyMs * 1000) / decides) : null);
  rows.push(["busy, main thread", total(b, before?.decides), null, total(a, after?.decides), null]);
  return {
    title:
      "where the server's CPU goes per decide (--cpu-prof, closed loop, 128 connections, profile-summary.ts; the profiler adds CPU of its own, so read the shares)",
    columns: ["stage", "before µs per decide", "before share", "after µs per decide", "after share"],
    rows,
  };
}

function main(): void {
  const { values } = parseArgs({
    options: {
      before: { type: "string" },
      after: { type: "string", default: "bench-results/api.json" },
      // The result file that gets the tables, when it is not the after run's own (default: --after).
      into: { type: "string" },
      "profile-before": { type: "string" },
      "decides-before": { type: "string" },
      "root-before": { type: "string", default: process.cwd() },
      "profile-after": { type: "string" },
      "decides-after": { type: "string" },
      "root-after": { type: "string", default: process.cwd() },
      note: { type: "string", multiple: true },
    },
  });
  if (!values.before) throw new Error("usage: compare-runs.ts --before <result.json> [--after <result.json>] [--profile-before … --decides-before N] …");
  const before = read(values.before);
  const after = read(path.resolve(values.after!));
  const intoFile = path.resolve(values.into ?? values.after!);
  const into = read(intoFile);
  const profile = (file: string | undefined, decides: string | undefined, root: string) =>
    file && decides ? { file, decides: Number(decides), root: path.resolve(root) } : null;
  const tables = [
    comparison(before, after),
    profileTable(
      profile(values["profile-before"], values["decides-before"], values["root-before"]!),
      profile(values["profile-after"], values["decides-after"], values["root-after"]!),
    ),
  ].filter((t): t is TBenchTable => t !== null);
  const titles = new Set(tables.map((t) => t.title.split(":")[0]));
  const kept = (into.tables ?? []).filter((t) => !titles.has(t.title.split(":")[0]) && !t.title.startsWith("where the server's CPU goes"));
  const out = ZBenchResult.parse({ ...into, tables: [...kept, ...tables], notes: [...(into.notes ?? []), ...(values.note ?? [])] });
  writeFileSync(intoFile, `${JSON.stringify(out, null, 2)}\n`);
  console.log(`${intoFile}: ${tables.length} tables`);
}

main();
