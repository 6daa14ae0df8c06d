import { createHash } from "node:crypto";
import path from "node:path";
import { parseArgs } from "node:util";
import pg from "pg";
import { createScratchDatabase } from "../../lib/db/drift";
import { benchPostgresServer } from "../lib/bench-postgres";
import { applyMigrations } from "../../lib/db/migrate";
import { addRollupDeltas, rollupDeltasOf, type TDecisionRow } from "../../lib/dataplane";
import { uuidV7At } from "../../lib/dataplane/decision-id";
import { CLAIM_LOG_TABLE_DDL, createClaimLog } from "../../lib/decision-store/idempotency-keys";
import { writeBenchResult, type TBenchFigure } from "../lib/bench-results";
import { postgresServerPid, processTreeCpuSeconds } from "../lib/process-cpu";

// `npx tsx bench/decision-store/claim-step.ts`: ClickHouse mode's idempotency claims alone, two
// instances (each its own pool and memory) claiming batches at once on one Postgres: the claim log
// (a row per batch under one advisory lock) next to the previous design, a claim row per decision
// (its statements as they were, below), in the same run. Each batch also adds its rollup cells, as
// the store does. Figures: claims/s, Postgres CPU and WAL per claim, the claim step's p50/p99.
// Results: bench-results/decision-claims.json.

/** The previous design, for reference: one row per (operation, request_id, api key) in decision_idempotency_key. */
const PER_DECISION_DDL = `create table if not exists decision_idempotency_key (key_hash uuid primary key, decision_id uuid not null, created_at timestamptz not null)`;
const PER_DECISION_CLAIM = `with input as (
    select * from unnest($1::uuid[], $2::uuid[], $3::timestamptz[]) as t(key_hash, decision_id, created_at)
  ), claimed as (
    insert into decision_idempotency_key as k (key_hash, decision_id, created_at)
    select * from input
    on conflict (key_hash) do update set decision_id = excluded.decision_id, created_at = excluded.created_at
      where k.created_at < excluded.created_at - make_interval(secs => $4::float8 / 1000)
    returning decision_id
  )
  select decision_id::text from input where decision_id not in (select decision_id from claimed)`;
const PER_DECISION_HOLDERS = `select key_hash::text as key_hash, decision_id::text as decision_id from decision_idempotency_key where key_hash = any($1::uuid[])`;

const WINDOW_MS = 300_000;
const keyOf = (r: TDecisionRow) => `${r.operation}\u0000${r.requestId}\u0000${r.apiKeyId ?? ""}`;
const keyUuid = (r: TDecisionRow) => {
  const h = createHash("sha256").update(keyOf(r)).digest("hex");
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-${h.slice(12, 16)}-${h.slice(16, 20)}-${h.slice(20, 32)}`;
};

async function perDecisionClaim(pool: pg.Pool, rows: readonly TDecisionRow[]): Promise<number> {
  // A key twice in one batch: the first row claims it, the others lose to it (as the store did).
  const first = new Map<string, TDecisionRow>();
  for (const r of rows) if (!first.has(keyUuid(r))) first.set(keyUuid(r), r);
  const inBatchLost = rows.length - first.size;
  const keyed = [...first].map(([k, r]) => ({ r, k })).sort((a, b) => (a.k < b.k ? -1 : 1));
  const sorted = keyed.map((x) => x.r);
  const client = await pool.connect();
  try {
    await client.query("begin");
    const lost = await client.query<{ decision_id: string }>({
      name: "claim",
      text: PER_DECISION_CLAIM,
      values: [keyed.map((x) => x.k), sorted.map((r) => r.id), sorted.map((r) => new Date(r.createdAt).toISOString()), WINDOW_MS],
    });
    const ids = new Set(lost.rows.map((r) => r.decision_id));
    if (ids.size > 0) await client.query(PER_DECISION_HOLDERS, [keyed.filter((x) => ids.has(x.r.id)).map((x) => x.k)]);
    await addRollupDeltas(client, rollupDeltasOf(sorted.filter((r) => !ids.has(r.id))));
    await client.query("commit");
    return ids.size + inBatchLost;
  } finally {
    client.release();
  }
}

function row(requestId: string): TDecisionRow {
  const createdAt = Date.now();
  return {
    id: uuidV7At(createdAt),
    createdAt,
    operation: "SEND_SMS",
    region: ["EU", "NA", "APAC"][createdAt % 3]!,
    requestId,
    policyVersion: "v1",
    shadowVersion: null,
    selectedProvider: "provider_A",
    reasonCode: "share_weighted",
    shadowPick: null,
    shadowAgrees: null,
    scoreMargin: 0.2,
    stale: false,
    metricAgeMs: 1500,
    fallbackAction: null,
    degraded: false,
    body: "{}",
    durability: "sync",
    instanceId: "bench",
    apiKeyId: "bench-key",
    offeredProviders: "provider_A",
    source: "server",
  };
}

type TScheme = "per-decision row" | "claim log";
type TPoint = {
  scheme: TScheme;
  batch: number;
  claims: number;
  perSecond: number;
  pgUsPerClaim: number | null;
  walPerClaim: number;
  p50: number;
  p99: number;
  lost: number;
};

const quantile = (xs: number[], q: number) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length === 0 ? 0 : s[Math.min(s.length - 1, Math.floor(q * s.length))]!;
};

/** Two instances claim batches of fresh keys for `seconds`; every 50th key is also sent by the other instance (a retry across instances). */
async function measure(url: string, scheme: TScheme, batch: number, seconds: number, pgPid: number | null): Promise<TPoint> {
  const pools = [0, 1].map(() => new pg.Pool({ connectionString: url, max: 2 }));
  const admin = new pg.Pool({ connectionString: url, max: 1 });
  const logs = pools.map((pool) => createClaimLog({ pool, windowMs: WINDOW_MS }));
  const steps: number[] = [];
  let claims = 0;
  let lost = 0;
  const wal = async () => BigInt((await admin.query<{ l: string }>("select (pg_current_wal_lsn() - '0/0')::text as l")).rows[0]!.l);
  const w0 = await wal();
  const cpu0 = processTreeCpuSeconds(pgPid);
  const started = performance.now();
  const end = started + seconds * 1000;
  let n = 0;
  await Promise.all(
    [0, 1].map(async (i) => {
      while (performance.now() < end) {
        const rows = Array.from({ length: batch }, () => {
          const k = n++;
          return row(k % 50 === 0 ? `shared-${scheme}-${Math.floor(k / 100)}` : `${scheme}-${i}-${k}`);
        });
        const t = performance.now();
        lost += scheme === "claim log" ? (await logs[i]!.claim(rows)).size : await perDecisionClaim(pools[i]!, rows);
        steps.push(performance.now() - t);
        claims += rows.length;
      }
    }),
  );
  const elapsed = (performance.now() - started) / 1000;
  const cpu1 = processTreeCpuSeconds(pgPid);
  const w1 = await wal();
  for (const p of [...pools, admin]) await p.end();
  return {
    scheme,
    batch,
    claims,
    perSecond: claims / elapsed,
    pgUsPerClaim: cpu0 === null || cpu1 === null ? null : ((cpu1 - cpu0) * 1e6) / claims,
    walPerClaim: Number(w1 - w0) / claims,
    p50: quantile(steps, 0.5),
    p99: quantile(steps, 0.99),
    lost,
  };
}

async function main(): Promise<void> {
  const { values } = parseArgs({ options: { seconds: { type: "string", default: "5" }, batches: { type: "string", default: "50,500" } } });
  const seconds = Number(values.seconds);
  const batches = values.batches.split(",").map(Number);
  const { url: serverUrl, cluster } = await benchPostgresServer(path.resolve(".data", "postgres-bench-claims"), 54333);
  const scratch = await createScratchDatabase(serverUrl, "switchyard_claims");
  try {
    await applyMigrations(scratch.url);
    const setup = new pg.Pool({ connectionString: scratch.url, max: 1 });
    await setup.query(CLAIM_LOG_TABLE_DDL);
    await setup.query(PER_DECISION_DDL);
    const pgPid = await postgresServerPid((sql) => setup.query<{ pid: number }>(sql));
    await setup.end();
    const points: TPoint[] = [];
    for (const batch of batches) {
      for (const scheme of ["per-decision row", "claim log"] as const) {
        const p = await measure(scratch.url, scheme, batch, seconds, pgPid);
        points.push(p);
        console.log(
          `${scheme.padEnd(16)} batch ${batch}: ${p.perSecond.toFixed(0)} claims/s, Postgres ${p.pgUsPerClaim?.toFixed(1)} µs and ${p.walPerClaim.toFixed(0)} B WAL per claim, step p50 ${p.p50.toFixed(1)} ms p99 ${p.p99.toFixed(1)} ms, ${p.lost} lost`,
        );
      }
    }
    const figures: TBenchFigure[] = points.flatMap((p) => [
      {
        label: `${p.scheme}, batches of ${p.batch}: Postgres CPU per claim`,
        value: p.pgUsPerClaim === null ? null : Number(p.pgUsPerClaim.toFixed(2)),
        unit: "µs",
      },
      { label: `${p.scheme}, batches of ${p.batch}: claims/s (two instances)`, value: Math.round(p.perSecond), unit: "claims/s" },
    ]);
    const file = writeBenchResult({
      name: "decision-claims",
      title: "ClickHouse mode's idempotency claims: claim log vs a row per decision",
      command: `npx tsx bench/decision-store/claim-step.ts --seconds ${seconds} --batches ${batches.join(",")}`,
      parameters: {
        seconds,
        batches: batches.join(","),
        instances: 2,
        window: "5 min",
        database: process.env.DATABASE_URL ? "DATABASE_URL" : "embedded Postgres of its own",
      },
      figures,
      tables: [
        {
          title: "claims per scheme and batch size (each batch with its rollup cells)",
          columns: ["scheme", "batch", "claims", "claims/s", "Postgres µs/claim", "WAL B/claim", "step p50 ms", "step p99 ms", "lost (retries)"],
          rows: points.map((p) => [
            p.scheme,
            p.batch,
            p.claims,
            Math.round(p.perSecond),
            p.pgUsPerClaim === null ? null : Number(p.pgUsPerClaim.toFixed(2)),
            Math.round(p.walPerClaim),
            Number(p.p50.toFixed(2)),
            Number(p.p99.toFixed(2)),
            p.lost,
          ]),
        },
      ],
      notes: [
        "Postgres CPU is the whole server's (postmaster, backends, WAL writer, checkpointer, autovacuum) over the run, per claim; the client (this process) shares the two cores.",
        "Every 50th key is sent by both instances (a retry landing on the other instance): it must lose on one of them.",
      ],
    });
    console.log(`wrote ${file}`);
  } finally {
    await scratch.drop();
    await cluster?.stop();
  }
}

main().then(
  () => process.exit(0),
  (err: unknown) => {
    console.error(err);
    process.exit(1);
  },
);
