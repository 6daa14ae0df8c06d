import type { ClickHouseClient } from "@clickhouse/client";
import pg from "pg";
import { createPrisma } from "../../lib/db/client";
import { applyMigrations } from "../../lib/db/migrate";
import { seedDemo } from "../../lib/demo/seed-demo";
import { maintainPartitions } from "../../lib/dataplane/decision-log/partitions";
import { loadConfig } from "../../lib/dataplane/load-config";
import { createRoutingState } from "../../lib/dataplane/routing-state";
import { flushBuckets } from "../../lib/dataplane/telemetry/metric-sync";
import { beginBulkLoad } from "./bulk-load";
import { addRollupDeltas, rollupDeltasOf } from "../../lib/dataplane/decision-log/rollup";
import type { TDecisionRow } from "../../lib/dataplane/decision-log/rows";
import { clickHouseTableBytes, createClickHouseSink, decisionRowsOf, emptyClickHouseTables, type TClickHouseTableBytes } from "./clickhouse";
import { checkDecisionColumns, insertTemplatedDecisions, type TCompactDecision } from "./decision-insert";
import { createScaleSimulation, type TEpochBatch, type TFinalState } from "./simulate";

export type TSeedProgress = { decisions: number; total: number; outcomes: number; elapsedMs: number };

export type TSeedScaleOptions = {
  databaseUrl: string;
  decisions: number;
  days: number;
  seed?: number;
  /** End of the window; default now. */
  end?: number;
  /** Empty the decision log and the telemetry tables first; without it a non-empty log is refused. */
  reset?: boolean;
  /** Decisions per write transaction. */
  batch?: number;
  /** Share-sample interval (default the controller's 5 s tick); tests use a longer one. */
  sampleMs?: number;
  onProgress?: (p: TSeedProgress) => void;
  /** Checked after every simulated epoch: true ends the load early, leaving a consistent, smaller data set. */
  shouldStop?: () => boolean;
  log?: (line: string) => void;
  /**
   * ClickHouse mode: decisions and outcomes go to this ClickHouse (the product's tables, created
   * by the caller), `clickHouseBatch` decisions per insert; Postgres gets everything else and the
   * rollup cells, as the server writes them in that mode.
   */
  clickHouse?: ClickHouseClient;
  clickHouseBatch?: number;
};

export type TSeedScaleResult = {
  decisions: number;
  /** True when shouldStop ended the load before all decisions were written. */
  stoppedEarly: boolean;
  callOutcomes: number;
  businessOutcomes: number;
  shareSamples: number;
  shiftEvents: number;
  breakerEvents: number;
  metricBuckets: number;
  partitions: string[];
  from: number;
  to: number;
  /** Wall time of the bulk load (decisions, outcomes, samples, events), excluding ANALYZE. */
  loadMs: number;
  analyzeMs: number;
  decisionsPerSecond: number;
  rowsPerSecond: number;
  tableBytes: { decision: number; outcomes: number };
  /** ClickHouse mode: the decision and outcome tables' active parts after OPTIMIZE … FINAL. */
  clickHouseBytes?: TClickHouseTableBytes[];
};

/** Tables the seed fills; --reset empties them (config, users and the audit log stay). */
/** Tables whose secondary indexes are dropped for the load and rebuilt after it (bulk-load.ts). */
const REINDEXED_TABLES = ["provider_call_outcome", "business_outcome", "traffic_share_sample", "shift_event"];

const SEEDED_TABLES = [
  "decision",
  "decision_rollup",
  "decision_rollup_pending",
  "provider_call_outcome",
  "business_outcome",
  "traffic_share_sample",
  "shift_event",
  "breaker_event",
  "metric_bucket",
  "controller_state",
  "traffic_share",
];

const INSERT_CALLS = `insert into provider_call_outcome (outcome_id, decision_id, operation_key, region, provider_key, status, error_class, http_status, latency_ms, retry_count, reported_at)
  select o, d, op, r, p, case when ok then 'success' else 'failure' end, e::"OutcomeErrorClass", h, l, rc, to_timestamp(at / 1000.0)
    from unnest($1::uuid[], $2::text[], $3::text[], $4::text[], $5::text[], $6::bool[], $7::text[], $8::int[], $9::float8[], $10::int[], $11::int8[])
      as t(o, d, op, r, p, ok, e, h, l, rc, at)`;

const INSERT_BUSINESS = `insert into business_outcome (outcome_id, decision_id, operation_key, region, provider_key, completed, failure_stage, within_sla, reported_at)
  select o, d, op, r, p, c, f::"OutcomeFailureStage", s, to_timestamp(at / 1000.0)
    from unnest($1::uuid[], $2::text[], $3::text[], $4::text[], $5::text[], $6::bool[], $7::text[], $8::bool[], $9::int8[])
      as t(o, d, op, r, p, c, f, s, at)`;

const INSERT_SAMPLES = `insert into traffic_share_sample (operation_key, region, at, shares)
  select op, r, to_timestamp(at / 1000.0), s::jsonb from unnest($1::text[], $2::text[], $3::int8[], $4::text[]) as t(op, r, at, s)`;

// The controller loop's own shift_event insert shape (lib/dataplane/controller/controller-loop.ts).
const INSERT_EVENTS = `insert into shift_event (at, operation_key, region, type, provider_key, leader_from, leader_to, shares_from, shares_to, capped, detail, evidence, policy_version)
  select to_timestamp(x.at / 1000.0), x.o, x.r, x.type, x.provider, x.lf, x.lt, x.sf, x.st, x.capped, x.detail, x.evidence, x.v
    from jsonb_to_recordset($1::jsonb) as x(at bigint, o text, r text, type text, provider text, lf text, lt text, sf jsonb, st jsonb,
      capped boolean, detail text, evidence jsonb, v text)`;

/** `rows`: in ClickHouse mode, the chunk's decisions as the log's rows (already handed to ClickHouse's buffer); their rollup cells go to Postgres. */
type TChunk = { decisions: number; batches: TEpochBatch[]; rows?: TDecisionRow[] };

/** The Postgres store's rows of a chunk: decisions into their daily partitions, both outcome kinds. */
async function writeDecisionsAndOutcomes(
  client: pg.PoolClient,
  chunk: TChunk,
  templates: TEpochBatch["templates"],
  calls: TEpochBatch["calls"],
  business: TEpochBatch["business"],
  partitionFor: (at: number) => string,
): Promise<void> {
  const byPartition = new Map<string, TCompactDecision[]>();
  for (const b of chunk.batches) {
    for (const d of b.decisions) {
      const table = partitionFor(d.at);
      const list = byPartition.get(table);
      if (list) list.push(d);
      else byPartition.set(table, [d]);
    }
  }
  for (const [table, rows] of byPartition) await insertTemplatedDecisions(client, table, templates, rows);
  if (calls.length > 0) {
    await client.query(INSERT_CALLS, [
      calls.map((c) => c.outcomeId),
      calls.map((c) => c.decisionId),
      calls.map((c) => c.operation),
      calls.map((c) => c.region),
      calls.map((c) => c.provider),
      calls.map((c) => c.ok),
      calls.map((c) => c.errorClass),
      calls.map((c) => c.httpStatus),
      calls.map((c) => c.latencyMs),
      calls.map((c) => c.retryCount),
      calls.map((c) => c.reportedAt),
    ]);
  }
  if (business.length > 0) {
    await client.query(INSERT_BUSINESS, [
      business.map((b) => b.outcomeId),
      business.map((b) => b.decisionId),
      business.map((b) => b.operation),
      business.map((b) => b.region),
      business.map((b) => b.provider),
      business.map((b) => b.completed),
      business.map((b) => b.failureStage),
      business.map((b) => b.withinSla),
      business.map((b) => b.reportedAt),
    ]);
  }
}

async function writeChunk(client: pg.PoolClient, chunk: TChunk, partitionFor: (at: number) => string): Promise<void> {
  const calls = chunk.batches.flatMap((b) => b.calls);
  const business = chunk.batches.flatMap((b) => b.business);
  const samples = chunk.batches.flatMap((b) => b.samples);
  const events = chunk.batches.flatMap((b) => b.events);
  await client.query("begin");
  try {
    const templates = chunk.batches.flatMap((b) => b.templates);
    // ClickHouse mode: the log store adds the rollup cells of the rows it inserts into ClickHouse.
    if (chunk.rows) await addRollupDeltas(client, rollupDeltasOf(chunk.rows));
    else await writeDecisionsAndOutcomes(client, chunk, templates, calls, business, partitionFor);
    if (samples.length > 0) {
      await client.query(INSERT_SAMPLES, [
        samples.map((s) => s.operation),
        samples.map((s) => s.region),
        samples.map((s) => s.at),
        samples.map((s) => JSON.stringify(s.shares)),
      ]);
    }
    if (events.length > 0) {
      const rows = events.map(({ operation, region, policyVersion, event: e }) => ({
        at: e.at,
        o: operation,
        r: region,
        type: e.type,
        provider: e.provider,
        lf: e.leader.from,
        lt: e.leader.to,
        sf: e.shares.from,
        st: e.shares.to,
        capped: e.capped,
        detail: e.detail,
        evidence: e.evidence,
        v: policyVersion,
      }));
      await client.query(INSERT_EVENTS, [JSON.stringify(rows)]);
    }
    await client.query("commit");
  } catch (err) {
    await client.query("rollback").catch(() => {});
    throw err;
  }
}

async function writeFinal(pool: pg.Pool, final: TFinalState, end: number): Promise<void> {
  for (let i = 0; i < final.buckets.length; i += 2_000) await flushBuckets(pool, final.buckets.slice(i, i + 2_000));
  if (final.breakerEvents.length > 0) {
    await pool.query(
      `insert into breaker_event (provider_key, region, from_state, to_state, reason, detail, instance_id, at)
       select x.provider, x.region, x."from", x."to", x.reason, x.detail, 'scale-seed', to_timestamp(x.at / 1000.0)
       from jsonb_to_recordset($1::jsonb) as x(provider text, region text, "from" text, "to" text, reason text, detail text, at bigint)`,
      [JSON.stringify(final.breakerEvents)],
    );
  }
  await pool.query(
    `insert into traffic_share (operation_key, region, provider_key, share, policy_version, updated_at)
     select x.o, x.r, x.p, x.s, x.v, to_timestamp($2 / 1000.0) from jsonb_to_recordset($1::jsonb) as x(o text, r text, p text, s float8, v text)
     on conflict (operation_key, region, provider_key) do update set share = excluded.share, policy_version = excluded.policy_version, updated_at = excluded.updated_at`,
    [JSON.stringify(final.shares.map((s) => ({ o: s.operation, r: s.region, p: s.provider, s: s.share, v: s.policyVersion }))), end],
  );
  await pool.query(
    `insert into controller_state (operation_key, region, state, instance_id, updated_at)
     select x.o, x.r, x.state, 'scale-seed', to_timestamp($2 / 1000.0) from jsonb_to_recordset($1::jsonb) as x(o text, r text, state jsonb)
     on conflict (operation_key, region) do update set state = excluded.state, instance_id = excluded.instance_id, updated_at = excluded.updated_at`,
    [JSON.stringify(final.controllerStates.map((c) => ({ o: c.operation, r: c.region, state: c.state }))), end],
  );
}

type TLog = (line: string) => void;
type TCounts = { decisions: number; calls: number; business: number; samples: number; events: number };
type TSimulation = ReturnType<typeof createScaleSimulation>;

/** The full demo catalogue (the email operation, the SMS shadow version, demo users): seedDemo writes it only in demo mode. */
async function seedCatalogue(prisma: ReturnType<typeof createPrisma>, log: TLog): Promise<void> {
  const demoFlag = process.env.SWITCHYARD_DEMO_MODE;
  process.env.SWITCHYARD_DEMO_MODE = "1";
  try {
    // seedDemo's interactive transactions time out after 5 s; on a machine busy enough to miss that, try again.
    for (let attempt = 1; ; attempt++) {
      try {
        await seedDemo(prisma);
        break;
      } catch (err) {
        if (attempt >= 3 || !/expired transaction|Transaction API error/.test(String((err as Error).message))) throw err;
        log(`seeding the demo catalogue timed out (attempt ${attempt}); retrying`);
      }
    }
  } finally {
    if (demoFlag === undefined) delete process.env.SWITCHYARD_DEMO_MODE;
    else process.env.SWITCHYARD_DEMO_MODE = demoFlag;
  }
}

/** Refuses a non-empty log unless `reset`; with it, empties the seeded tables and drops daily tables a killed seed left detached (bulk-load.ts). */
async function emptySeededTables(pool: pg.Pool, reset: boolean | undefined, log: TLog): Promise<void> {
  const { rows: strays } = await pool.query<{ name: string }>(
    `select relname as name from pg_class where relname ~ '^decision_p[0-9]{8}$' and relkind = 'r' and not relispartition
        and relnamespace = current_schema()::regnamespace`,
  );
  const { rows: present } = await pool.query<{ n: boolean }>(
    // The rollups and samples too: in ClickHouse mode they are all a stopped seed leaves in Postgres.
    `select ${["decision", "provider_call_outcome", "business_outcome", "decision_rollup", "traffic_share_sample"].map((t) => `exists (select 1 from ${t})`).join(" or ")} as n`,
  );
  if (!present[0]!.n && strays.length === 0) return;
  if (!reset) throw new Error("the decision log, its rollups or the telemetry tables already hold rows: pass --reset to empty them first");
  log(`emptying ${SEEDED_TABLES.join(", ")}${strays.length > 0 ? `; dropping detached ${strays.map((s) => s.name).join(", ")}` : ""}`);
  await pool.query(`truncate ${SEEDED_TABLES.join(", ")}`);
  for (const s of strays) await pool.query(`drop table ${pg.escapeIdentifier(s.name)}`);
}

/**
 * Two writers: one transaction commits while the generator fills the next, keeping both cores
 * busy. write() waits for a free connection; drain() waits for every write and rethrows the first failure.
 */
async function createChunkWriter(pool: pg.Pool, partitionFor: (at: number) => string) {
  const clients: pg.PoolClient[] = [];
  for (let i = 0; i < 2; i++) {
    const c = await pool.connect();
    // A seed can be rerun (--reset): trading the last commits on a crash for not waiting on every WAL flush.
    await c.query("set synchronous_commit = off");
    clients.push(c);
  }
  const inFlight: Promise<void>[] = [];
  const free = [...clients];
  let failure: unknown = null;
  const write = async (chunk: TChunk) => {
    while (free.length === 0 && failure === null) await Promise.race(inFlight);
    if (failure !== null) throw failure;
    const client = free.pop()!;
    const p: Promise<void> = writeChunk(client, chunk, partitionFor)
      .catch((err: unknown) => {
        failure ??= err;
      })
      .finally(() => {
        free.push(client);
        inFlight.splice(inFlight.indexOf(p), 1);
      });
    inFlight.push(p);
  };
  const drain = async () => {
    await Promise.all(inFlight);
    if (failure !== null) throw failure;
  };
  const release = async () => {
    await Promise.all(inFlight);
    for (const c of clients) c.release();
  };
  return { write, drain, release };
}

/** Runs the simulation epoch by epoch, writing a chunk every `batchSize` decisions; stops early when opts.shouldStop says so. */
async function streamSimulation(sim: TSimulation, opts: TSeedScaleOptions, write: (chunk: TChunk) => Promise<void>, counts: TCounts, started: number) {
  const batchSize = opts.batch ?? 5_000;
  let chunk: TChunk = { decisions: 0, batches: [] };
  const it = sim.run();
  for (;;) {
    const next = it.next();
    if (next.done) {
      if (chunk.batches.length > 0) await write(chunk);
      return { final: next.value, stoppedEarly: false };
    }
    const b = next.value;
    if (opts.shouldStop?.()) {
      if (chunk.batches.length > 0) await write(chunk);
      return { final: sim.finish(b.start), stoppedEarly: true };
    }
    chunk.batches.push(b);
    chunk.decisions += b.decisions.length;
    counts.decisions += b.decisions.length;
    counts.calls += b.calls.length;
    counts.business += b.business.length;
    counts.samples += b.samples.length;
    counts.events += b.events.length;
    if (chunk.decisions >= batchSize) {
      await write(chunk);
      chunk = { decisions: 0, batches: [] };
      opts.onProgress?.({ decisions: counts.decisions, total: opts.decisions, outcomes: counts.calls + counts.business, elapsedMs: Date.now() - started });
    }
    // The generator is synchronous: let the sockets of the writes in flight make progress.
    await new Promise((r) => setImmediate(r));
  }
}

/**
 * VACUUM as well as ANALYZE: it sets the visibility map that index-only scans rely on (the shadow
 * view's agreement counts), which autovacuum does for a live insert-only log soon after the fact.
 */
async function vacuumAndMeasure(pool: pg.Pool, log: TLog): Promise<{ analyzeMs: number; tableBytes: TSeedScaleResult["tableBytes"] }> {
  log("vacuum analyze (planner statistics and visibility map for the new rows)");
  const analyzeStarted = Date.now();
  await pool.query(`vacuum (analyze) ${SEEDED_TABLES.join(", ")}`);
  const analyzeMs = Date.now() - analyzeStarted;
  const { rows: sizes } = await pool.query<{ decision: string; outcomes: string }>(
    `select (select coalesce(sum(pg_total_relation_size(inhrelid)), 0) from pg_inherits where inhparent = 'decision'::regclass)::bigint as decision,
            (pg_total_relation_size('provider_call_outcome') + pg_total_relation_size('business_outcome'))::bigint as outcomes`,
  );
  return { analyzeMs, tableBytes: { decision: Number(sizes[0]!.decision), outcomes: Number(sizes[0]!.outcomes) } };
}

/**
 * Merges each day's parts into one (OPTIMIZE … FINAL), what the background merges make of a past
 * week, so the benchmark reads the same layout every run and FINAL has nothing to collapse; then
 * the tables' sizes from system.parts.
 */
async function settleClickHouse(client: ClickHouseClient, log: TLog): Promise<TClickHouseTableBytes[]> {
  for (const table of ["decision", "outcome"]) {
    const started = Date.now();
    await client.command({ query: `OPTIMIZE TABLE ${table} FINAL` });
    log(`ClickHouse: OPTIMIZE TABLE ${table} FINAL in ${((Date.now() - started) / 1000).toFixed(1)} s`);
  }
  return clickHouseTableBytes(client);
}

/** The simulation over the routing state loaded from the seeded catalogue, and the window's daily partitions. */
async function prepareSimulation(pool: pg.Pool, prisma: ReturnType<typeof createPrisma>, opts: TSeedScaleOptions, end: number, log: TLog) {
  let now = end;
  const state = createRoutingState({ now: () => now });
  await loadConfig(prisma, state, end);
  const sim = createScaleSimulation(
    state,
    { decisions: opts.decisions, days: opts.days, end, seed: opts.seed ?? 42, sampleMs: opts.sampleMs },
    { set: (t) => (now = t) },
  );
  const partitions = await maintainPartitions(pool, { now: end, daysAhead: 3, retentionDays: 0, from: sim.start });
  log(
    `window ${new Date(sim.start).toISOString()} – ${new Date(end).toISOString()}; ${sim.scopes.length} (operation, region) scopes; partitions created: ${partitions.created.length}`,
  );
  return { sim, partitions: partitions.created };
}

/**
 * Seeds the demo catalogue (providers, SEND_SMS and SEND_EMAIL with their active policies, the
 * SMS shadow version, the demo users) and then `decisions` decisions over `days` days ending
 * now, with their outcomes, the controller's share samples and shift events, breaker history and
 * the last 48 h of metric buckets, all simulated by the product's own code (simulate.ts).
 * Decisions go into the decision log's daily partitions; with `clickHouse`, decisions and outcomes
 * go to ClickHouse's tables instead and Postgres gets their rollup cells.
 */
export async function seedScale(opts: TSeedScaleOptions): Promise<TSeedScaleResult> {
  const log = opts.log ?? (() => {});
  const end = Math.floor((opts.end ?? Date.now()) / 1000) * 1000;
  await applyMigrations(opts.databaseUrl);
  const prisma = createPrisma(opts.databaseUrl);
  const pool = new pg.Pool({ connectionString: opts.databaseUrl, max: 3 });
  try {
    await seedCatalogue(prisma, log);
    await checkDecisionColumns(pool);
    await emptySeededTables(pool, opts.reset, log);
    if (opts.clickHouse) await emptyClickHouseTables(opts.clickHouse, opts.reset, log);
    const { sim, partitions } = await prepareSimulation(pool, prisma, opts, end, log);
    const bulk = await beginBulkLoad(pool, { from: sim.start, to: end, tables: REINDEXED_TABLES });
    log("bulk-load mode: the window's partitions are detached and unindexed until the load ends");
    const writer = await createChunkWriter(pool, bulk.partitionFor);
    const sink = opts.clickHouse ? createClickHouseSink(opts.clickHouse, opts.clickHouseBatch ?? 100_000) : null;
    // ClickHouse mode: the chunk's rows go to ClickHouse's buffer first (it holds the generator back
    // while an insert is pending), then Postgres's transaction takes their rollup cells.
    const write = async (chunk: TChunk) => {
      if (sink) {
        chunk.rows = decisionRowsOf(
          chunk.batches.flatMap((b) => b.templates),
          chunk.batches.flatMap((b) => b.decisions),
        );
        await sink.add(
          chunk.rows,
          chunk.batches.flatMap((b) => b.calls),
          chunk.batches.flatMap((b) => b.business),
        );
      }
      await writer.write(chunk);
    };
    const counts: TCounts = { decisions: 0, calls: 0, business: 0, samples: 0, events: 0 };
    const started = Date.now();
    let streamed: Awaited<ReturnType<typeof streamSimulation>>;
    try {
      streamed = await streamSimulation(sim, opts, write, counts, started);
      await writer.drain();
      await sink?.finish();
    } finally {
      await writer.release();
      // Also after a failure: the log gets its partitions and indexes back whatever was loaded.
      log("re-attaching partitions and building indexes");
      await bulk.finish(log);
    }
    const { final, stoppedEarly } = streamed;
    opts.onProgress?.({ decisions: counts.decisions, total: opts.decisions, outcomes: counts.calls + counts.business, elapsedMs: Date.now() - started });
    await writeFinal(pool, final, end);
    if (!sink) {
      // The bulk load bypasses the decision log's insert, so its rollups are added here with the same
      // aggregation (decision_rollup_rebuild), as the server would have counted them.
      log("decision rollups for the window");
      await pool.query("select decision_rollup_rebuild($1, $2)", [new Date(sim.start - 60_000), new Date(end + 60_000)]);
    }
    const loadMs = Date.now() - started;
    const { analyzeMs, tableBytes } = await vacuumAndMeasure(pool, log);
    const clickHouseBytes = opts.clickHouse ? await settleClickHouse(opts.clickHouse, log) : undefined;
    const rows = counts.decisions + counts.calls + counts.business + counts.samples + counts.events;
    return {
      decisions: counts.decisions,
      stoppedEarly,
      callOutcomes: counts.calls,
      businessOutcomes: counts.business,
      shareSamples: counts.samples,
      shiftEvents: counts.events,
      breakerEvents: final.breakerEvents.length,
      metricBuckets: final.buckets.length,
      partitions,
      from: sim.start,
      to: end,
      loadMs,
      analyzeMs,
      decisionsPerSecond: counts.decisions / (loadMs / 1000),
      rowsPerSecond: rows / (loadMs / 1000),
      tableBytes,
      ...(clickHouseBytes ? { clickHouseBytes } : {}),
    };
  } finally {
    await pool.end();
    await prisma.$disconnect();
  }
}
