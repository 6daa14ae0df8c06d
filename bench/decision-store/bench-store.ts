import type { ChildProcess } from "node:child_process";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { parseArgs } from "node:util";
import { createClient } from "@clickhouse/client";
import pg from "pg";
import { createScratchDatabase } from "../../lib/db/drift";
import type { TEmbeddedDatabase } from "../../lib/db/embedded";
import { benchPostgresServer } from "../lib/bench-postgres";
import { startClickHouseShim, type ClickHouseShim } from "../../test/support/clickhouse-shim";
import { commitBetween, scrapeCommit, type TCommitPhase } from "../api/commit-histograms";
import { acknowledgedIds, AUTH, load, startServer, type TClosedLoop } from "../api/decide-load";
import { writeBenchResult, type TBenchFigure, type TBenchInvariant } from "../lib/bench-results";
import { postgresServerPid, processTreeCpuSeconds, withCpuPerUnit } from "../lib/process-cpu";

// `npm run bench:store`: decide over HTTP with the decision log in Postgres, then in ClickHouse
// (chdb behind the HTTP shim, in this process), in one run on one machine: decisions/s, the CPU
// each part spends per decide, and the bytes each store keeps per decision. Figures go to
// bench-results/decision-store.json.

type TMode = "postgres" | "clickhouse";
type TRun = {
  mode: TMode;
  result: TClosedLoop;
  serverUs: number | null;
  postgresUs: number | null;
  /** Postgres CPU per decide above what it spends idle with the server up (telemetry, metric sync, quota leases), at the run's rate. */
  postgresNetUs: number | null;
  /** This process's CPU per decide: the ClickHouse engine and its HTTP shim (the load generator runs in a child). */
  clickhouseUs: number | null;
  /** WAL Postgres wrote per decide during the run (pg_current_wal_lsn), background work included. */
  walBytes: number | null;
  /** Rows Postgres inserted or updated per decide during the run (pg_stat_database), background work included. */
  postgresRows: number | null;
  /** The group commit's batches during the run (the server's histograms): rows per batch, and each batch's write time (claims, rollups, insert). */
  commit: TCommitPhase;
  acked: string[];
  sizes: TSizes;
};
type TSizes = { rows: number; bytes: number; postgresBytes: number; columns?: Array<[string, number]> };

async function stop(child: ChildProcess): Promise<void> {
  const exited = new Promise((r) => child.once("exit", r));
  child.kill("SIGTERM");
  await exited;
}

/** The decision table's partitions and their candidate lists, with indexes and TOAST. */
async function postgresDecisionBytes(pool: pg.Pool): Promise<{ rows: number; bytes: number }> {
  const { rows } = await pool.query<{ n: string; bytes: string }>(
    `select (select count(*) from decision) as n,
            (select coalesce(sum(pg_total_relation_size(c.oid)), 0) from pg_inherits i join pg_class c on c.oid = i.inhrelid
              where i.inhparent in ('decision'::regclass, 'decision_candidates'::regclass)) as bytes`,
  );
  return { rows: Number(rows[0]!.n), bytes: Number(rows[0]!.bytes) };
}

/** ClickHouse's bytes on disk for the decision table's active parts (system.parts), after merging them. */
async function clickhouseSizes(url: string, pool: pg.Pool): Promise<TSizes> {
  const ch = createClient({ url });
  try {
    await ch.command({ query: "OPTIMIZE TABLE decision FINAL" });
    const q = async <T>(query: string) => (await ch.query({ query, format: "JSONEachRow" })).json<T>();
    const [parts] = await q<{ rows: string; bytes: string }>(
      "SELECT sum(rows) AS rows, sum(bytes_on_disk) AS bytes FROM system.parts WHERE database = currentDatabase() AND table = 'decision' AND active",
    );
    const columns = await q<{ name: string; bytes: string }>(
      "SELECT name, data_compressed_bytes AS bytes FROM system.columns WHERE database = currentDatabase() AND table = 'decision' ORDER BY data_compressed_bytes DESC",
    );
    // What this mode still keeps in Postgres: the claim log (a row per batch, one window of them) and the rollups.
    const { rows } = await pool.query<{ bytes: string }>(
      "select pg_total_relation_size('decision_claim_batch') + pg_total_relation_size('decision_rollup') as bytes",
    );
    return {
      rows: Number(parts!.rows),
      bytes: Number(parts!.bytes),
      postgresBytes: Number(rows[0]!.bytes),
      columns: columns.map((c) => [c.name, Number(c.bytes)]),
    };
  } finally {
    await ch.close();
  }
}

/** Postgres's WAL position and the rows written in this database so far. */
async function writes(pool: pg.Pool): Promise<{ wal: bigint; rows: number }> {
  const { rows } = await pool.query<{ lsn: string; n: string }>(
    `select (pg_current_wal_lsn() - '0/0')::text as lsn, (select tup_inserted + tup_updated + tup_deleted from pg_stat_database where datname = current_database())::text as n`,
  );
  return { wal: BigInt(rows[0]!.lsn), rows: Number(rows[0]!.n) };
}

async function runMode(mode: TMode, serverUrl: string, opts: { duration: number; connections: number }, dir: string): Promise<TRun> {
  const scratch = await createScratchDatabase(serverUrl, `switchyard_store_${mode}`);
  const pool = new pg.Pool({ connectionString: scratch.url, max: 2 });
  let shim: ClickHouseShim | null = null;
  try {
    if (mode === "clickhouse") shim = await startClickHouseShim({ path: path.join(dir, "engine") });
    const env: Record<string, string> = shim ? { SWITCHYARD_DECISION_STORE: "clickhouse", SWITCHYARD_CLICKHOUSE_URL: shim.url } : {};
    const { child, port } = await startServer(scratch.url, path.join(dir, `spool-${mode}`), "sync", null, {
      SWITCHYARD_INSTANCE_ID: "bench-store",
      ...env,
    });
    const pgPid = await postgresServerPid((sql) => pool.query<{ pid: number }>(sql));
    // Postgres's CPU while the server is up but nothing decides: its background work, which a
    // slower run would otherwise spread over fewer decides.
    const idleBefore = processTreeCpuSeconds(pgPid);
    await new Promise((r) => setTimeout(r, 5_000));
    const idleAfter = processTreeCpuSeconds(pgPid);
    const idlePerSecond = idleBefore === null || idleAfter === null ? null : (idleAfter - idleBefore) / 5;
    console.log(`${mode}: decide, sync durability, ${opts.connections} connections`);
    // The warm-up's decisions are rows too: collected, so the invariant compares every row with every acknowledgement.
    const first = acknowledgedIds.length;
    await load(port, 3, opts.connections, `${mode}-warm`);
    const own = process.cpuUsage();
    const w0 = await writes(pool);
    const c0 = await scrapeCommit(port, AUTH);
    const m = await withCpuPerUnit(
      child.pid,
      () => load(port, opts.duration, opts.connections, `${mode}-run`),
      (r) => r.ok,
      pgPid,
    );
    const used = process.cpuUsage(own);
    const commit = commitBetween(c0, await scrapeCommit(port, AUTH));
    // pg_stat_database lags its backends by up to a second.
    await new Promise((r) => setTimeout(r, 1_500));
    const w1 = await writes(pool);
    await stop(child);
    const walBytes = m.result.ok > 0 ? Number(w1.wal - w0.wal) / m.result.ok : null;
    const postgresRows = m.result.ok > 0 ? (w1.rows - w0.rows) / m.result.ok : null;
    const acked = acknowledgedIds.slice(first);
    const sizes = shim ? await clickhouseSizes(shim.url, pool) : { ...(await postgresDecisionBytes(pool)), postgresBytes: 0 };
    const clickhouseUs = shim ? (used.user + used.system) / m.result.ok : null;
    const postgresNetUs =
      m.postgresCpuUsPerUnit === null || idlePerSecond === null ? null : m.postgresCpuUsPerUnit - (idlePerSecond * 1e6 * m.result.seconds) / m.result.ok;
    return {
      mode,
      result: m.result,
      serverUs: m.cpuUsPerUnit,
      postgresUs: m.postgresCpuUsPerUnit,
      postgresNetUs,
      clickhouseUs,
      walBytes,
      postgresRows,
      commit,
      acked,
      sizes,
    };
  } finally {
    await shim?.close();
    await pool.end();
    await scratch.drop();
  }
}

/** Every acknowledged decision of the ClickHouse run is in ClickHouse (the Postgres run's are checked by bench:api). */
function report(runs: TRun[], opts: { duration: number; connections: number }): void {
  const figures: TBenchFigure[] = [];
  const rows: Array<Array<string | number | null>> = [];
  const round = (v: number | null) => (v === null ? null : Math.round(v));
  for (const r of runs) {
    const perSecond = r.result.ok / r.result.seconds;
    const bytesPer = r.sizes.rows > 0 ? r.sizes.bytes / r.sizes.rows : null;
    rows.push([
      r.mode,
      Math.round(perSecond),
      r.result.latency.p99,
      round(r.serverUs),
      round(r.postgresUs),
      round(r.postgresNetUs),
      round(r.clickhouseUs),
      round(r.walBytes),
      r.postgresRows === null ? null : Number(r.postgresRows.toFixed(3)),
      r.commit.transactions > 0 ? Number((r.commit.rows / r.commit.transactions).toFixed(1)) : null,
      r.commit.commitP50,
      r.commit.commitP99,
      bytesPer === null ? null : Math.round(bytesPer),
    ]);
    figures.push(
      { label: `${r.mode}: decides/s (closed loop, ${opts.connections} connections)`, value: Math.round(perSecond), unit: "req/s" },
      { label: `${r.mode}: Postgres CPU per decide`, value: round(r.postgresUs), unit: "µs" },
      { label: `${r.mode}: Postgres CPU per decide above idle`, value: round(r.postgresNetUs), unit: "µs" },
      { label: `${r.mode}: Postgres WAL per decide`, value: round(r.walBytes), unit: "B" },
      { label: `${r.mode}: Postgres rows written per decide`, value: r.postgresRows === null ? null : Number(r.postgresRows.toFixed(3)), unit: "rows" },
      { label: `${r.mode}: bytes per decision in the decision store`, value: bytesPer === null ? null : Math.round(bytesPer), unit: "B" },
    );
    console.log(
      `${r.mode.padEnd(10)} ${perSecond.toFixed(0)}/s p99 ${r.result.latency.p99} ms; CPU per decide: server ${r.serverUs?.toFixed(0)} µs, Postgres ${r.postgresUs?.toFixed(0)} µs (${r.postgresNetUs?.toFixed(0)} above idle)` +
        (r.clickhouseUs === null ? "" : `, ClickHouse + shim ${r.clickhouseUs.toFixed(0)} µs`) +
        `; Postgres WAL ${r.walBytes?.toFixed(0)} B and ${r.postgresRows?.toFixed(3)} rows written per decide` +
        `; ${r.commit.transactions} batches of ${(r.commit.rows / Math.max(1, r.commit.transactions)).toFixed(1)} rows, written in p50 ${r.commit.commitP50} ms, p99 ${r.commit.commitP99} ms` +
        `; ${r.sizes.rows} rows, ${r.sizes.bytes} B, ${bytesPer?.toFixed(0)} B per decision`,
    );
  }
  const ch = runs.find((r) => r.mode === "clickhouse");
  const invariants: TBenchInvariant[] = [];
  if (ch) {
    invariants.push({
      label: "ClickHouse rows = acknowledged decides (none lost, none twice)",
      ok: ch.sizes.rows === ch.acked.length,
      detail: `${ch.sizes.rows} rows, ${ch.acked.length} acknowledged`,
    });
    figures.push({ label: "clickhouse: Postgres bytes kept (claim log for one window + rollups)", value: ch.sizes.postgresBytes, unit: "B" });
    console.log(`clickhouse columns (compressed bytes): ${ch.sizes.columns?.map(([n, b]) => `${n} ${b}`).join(", ")}`);
  }
  const file = writeBenchResult({
    name: "decision-store",
    title: "Decision store: Postgres and ClickHouse",
    command: `npm run bench:store -- --duration ${opts.duration} --connections ${opts.connections}`,
    parameters: {
      duration: opts.duration,
      connections: opts.connections,
      clickhouse: "chdb 3.4.0 (ClickHouse 26.7) in the bench process behind the HTTP shim",
    },
    figures,
    tables: [
      {
        title: "decide per store",
        columns: [
          "store",
          "decides/s",
          "p99 ms",
          "server µs",
          "Postgres µs",
          "Postgres µs above idle",
          "ClickHouse µs",
          "Postgres WAL B/decide",
          "Postgres rows/decide",
          "rows per batch",
          "batch write p50 ms",
          "batch write p99 ms",
          "bytes/decision",
        ],
        rows,
      },
    ],
    invariants,
    notes: [
      "Bytes per decision: Postgres, pg_total_relation_size of the decision and decision_candidates partitions over their rows; ClickHouse, bytes_on_disk of the decision table's active parts (system.parts) after OPTIMIZE FINAL.",
      "ClickHouse runs embedded in the bench process (chdb), so its CPU competes with the server's and Postgres's on the same two cores.",
    ],
  });
  console.log(`wrote ${file}`);
}

async function main(): Promise<void> {
  const { values } = parseArgs({ options: { duration: { type: "string", default: "15" }, connections: { type: "string", default: "48" } } });
  const opts = { duration: Number(values.duration), connections: Number(values.connections) };
  const dir = await mkdtemp(path.join(tmpdir(), "sy-bench-store-"));
  let cluster: TEmbeddedDatabase | null = null;
  try {
    const server = await benchPostgresServer(path.resolve(".data", "postgres-bench"), 54331);
    cluster = server.cluster;
    const serverUrl = server.url;
    const runs = [await runMode("postgres", serverUrl, opts, dir), await runMode("clickhouse", serverUrl, opts, dir)];
    report(runs, opts);
  } finally {
    await cluster?.stop();
    await rm(dir, { recursive: true, force: true });
  }
}

main().then(
  () => process.exit(0),
  (err: unknown) => {
    console.error(err);
    process.exit(1);
  },
);
