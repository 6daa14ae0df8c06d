import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTestDatabase, type TTestDatabase } from "../../test/support/database";
import { uuidV7At } from "../dataplane/decision-id";
import type { TDecisionRow } from "../dataplane/decision-log/rows";
import { CLAIM_LOG_TABLE_DDL, createClaimLog, decodeClaims, encodeClaims, pruneClaims } from "./idempotency-keys";

// The claim log (idempotency in ClickHouse mode): instances racing on the same keys get exactly
// one decision per key, with one Postgres row per batch rather than per decision.

const WINDOW = 300_000;
let db: TTestDatabase;
const pools: pg.Pool[] = [];

/** An instance: its own pool (its own connections), as a separate process would have. */
function pool(): pg.Pool {
  const p = new pg.Pool({ connectionString: db.url, max: 2 });
  p.on("error", () => {});
  pools.push(p);
  return p;
}

beforeAll(async () => {
  db = await createTestDatabase();
  await pool().query(CLAIM_LOG_TABLE_DDL);
});

afterAll(async () => {
  for (const p of pools) await p.end();
  await db?.drop();
});

function row(operation: string, requestId: string, createdAt = Date.now(), apiKeyId: string | null = "key-1"): TDecisionRow {
  const id = uuidV7At(createdAt);
  return {
    id,
    createdAt,
    operation,
    region: "EU",
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
    instanceId: "test",
    apiKeyId,
    offeredProviders: "provider_A",
    source: "server",
  };
}

async function scalar(sql: string, values: unknown[] = []): Promise<number> {
  const { rows } = await pools[0]!.query<{ n: string }>(sql, values);
  return Number(rows[0]!.n);
}

/** Fisher-Yates with a fixed seed: each instance sees the keys in its own order. */
function shuffled<T>(xs: readonly T[], seed: number): T[] {
  const out = [...xs];
  let s = seed;
  for (let i = out.length - 1; i > 0; i--) {
    s = (s * 1103515245 + 12345) % 2 ** 31;
    const j = s % (i + 1);
    [out[i], out[j]] = [out[j]!, out[i]!];
  }
  return out;
}

describe("claim log", () => {
  it("gives exactly one decision per key when three instances race on the same keys in many small batches", async () => {
    const keys = Array.from({ length: 600 }, (_, i) => `race-${i}`);
    const instances = [0, 1, 2].map(() => createClaimLog({ pool: pool(), windowMs: WINDOW }));
    const rows = instances.map((_, n) => shuffled(keys, n + 7).map((k) => row("OP_RACE", k)));
    // Every instance sends all its batches at once: batches of different instances interleave freely.
    const results = await Promise.all(
      instances.flatMap((inst, n) => Array.from({ length: 30 }, (_, b) => inst.claim(rows[n]!.slice(b * 20, b * 20 + 20)).then((lost) => ({ n, b, lost })))),
    );
    const lostIds = new Map<string, string>();
    for (const r of results) for (const [id, holder] of r.lost) lostIds.set(id, holder);
    const byKey = new Map<string, TDecisionRow[]>();
    for (const r of rows.flat()) byKey.set(r.requestId, [...(byKey.get(r.requestId) ?? []), r]);
    for (const [key, candidates] of byKey) {
      const winners = candidates.filter((r) => !lostIds.has(r.id));
      expect(
        winners.map((w) => w.requestId),
        key,
      ).toEqual([key]);
      // Every loser is answered with the winner's id.
      for (const r of candidates) if (r !== winners[0]) expect(lostIds.get(r.id)).toBe(winners[0]!.id);
    }
    expect(await scalar("select coalesce(sum(count), 0) as n from decision_rollup where operation = 'OP_RACE'")).toBe(keys.length);
  });

  it("writes one Postgres row per batch, not one per decision", async () => {
    const log = createClaimLog({ pool: pool(), windowMs: WINDOW });
    const before = await scalar("select count(*) as n from decision_claim_batch");
    const batch = Array.from({ length: 500 }, (_, i) => row("OP_ROWS", `rows-${i}`));
    expect((await log.claim(batch)).size).toBe(0);
    expect(await scalar("select count(*) as n from decision_claim_batch")).toBe(before + 1);
    expect(await scalar("select octet_length(claims) as n from decision_claim_batch order by id desc limit 1")).toBe(500 * 40);
    // Stored out of line without a compression attempt; running the DDL again (another instance starting) keeps it so.
    await pools[0]!.query(CLAIM_LOG_TABLE_DDL);
    const { rows } = await pools[0]!.query<{ s: string }>(
      "select attstorage as s from pg_attribute where attrelid = 'decision_claim_batch'::regclass and attname = 'claims'",
    );
    expect(rows[0]!.s).toBe("e");
  });

  it("an instance started later holds the window's claims of the others; past the window a key is free again", async () => {
    const t = Date.now();
    const first = createClaimLog({ pool: pool(), windowMs: WINDOW });
    const old = row("OP_LATER", "old", t - WINDOW - 1_000);
    const recent = row("OP_LATER", "recent", t - 1_000);
    const otherKey = row("OP_LATER", "recent", t - 1_000, "key-2");
    expect((await first.claim([old, recent, otherKey])).size).toBe(0);
    const later = createClaimLog({ pool: pool(), windowMs: WINDOW });
    const again = [row("OP_LATER", "old", t), row("OP_LATER", "recent", t), row("OP_LATER", "recent", t, "key-2")];
    const lost = await later.claim(again);
    expect([...lost]).toEqual([
      [again[1]!.id, recent.id],
      [again[2]!.id, otherKey.id],
    ]);
    // A key twice in one batch: the second answers with the first.
    const twice = [row("OP_LATER", "twice", t), row("OP_LATER", "twice", t)];
    expect([...(await later.claim(twice))]).toEqual([[twice[1]!.id, twice[0]!.id]]);
  });

  it("encodes a claim in 40 bytes and prunes rows past the window", async () => {
    const id = uuidV7At(1_700_000_000_123);
    const key = Buffer.alloc(16, 7);
    expect(decodeClaims(encodeClaims([{ key, id, at: 1_700_000_000_123 }]))).toEqual([{ key: key.toString("base64"), id, at: 1_700_000_000_123 }]);
    const p = pools[0]!;
    await p.query("insert into decision_claim_batch (created_at, claims) values (now() - interval '1 hour', '\\x00')");
    expect(await pruneClaims(p, WINDOW, Date.now())).toBeGreaterThanOrEqual(1);
    expect(await scalar("select count(*) as n from decision_claim_batch where created_at < now() - interval '30 minutes'")).toBe(0);
  });
});
