import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTestDatabase, type TTestDatabase } from "@/test/support/database";
import { openScaleClickHouse, type TScaleClickHouse } from "./clickhouse";
import { seedScale, type TSeedScaleResult } from "./seed";

// The scale seed in ClickHouse mode: decisions and outcomes in ClickHouse's tables, their rollup
// cells and everything else in Postgres, as a server in that mode writes them.

let db: TTestDatabase;
let client: pg.Client;
let ch: TScaleClickHouse;
let dir: string;
let result: TSeedScaleResult;
const END = Date.UTC(2031, 2, 14, 15, 0, 0);

async function chRows<T>(query: string): Promise<T[]> {
  return (await ch.client.query({ query, format: "JSONEachRow" })).json<T>();
}

beforeAll(async () => {
  db = await createTestDatabase();
  client = new pg.Client({ connectionString: db.url });
  await client.connect();
  dir = mkdtempSync(path.join(tmpdir(), "scale-ch-"));
  ch = await openScaleClickHouse(dir);
  // Batches smaller than the run, so several inserts go out, one while the next buffer fills.
  result = await seedScale({
    databaseUrl: db.url,
    decisions: 3_000,
    days: 0.5,
    end: END,
    sampleMs: 30_000,
    batch: 500,
    clickHouse: ch.client,
    clickHouseBatch: 1_100,
  });
}, 240_000);

afterAll(async () => {
  await ch?.close();
  await client?.end();
  await db?.drop();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

describe("seedScale in ClickHouse mode", () => {
  it("writes the decisions to ClickHouse, each row's columns agreeing with its record, and none to Postgres", async () => {
    expect(result.decisions).toBe(3_000);
    const [row] = await chRows<{ n: string; ids: string; bad: string; span: string }>(`
      SELECT toString(count()) AS n, toString(uniqExact(id)) AS ids,
             countIf(JSONExtractString(record, 'id') != toString(id) OR JSONExtractString(record, 'decisionId') != toString(id)
               OR JSONExtractString(record, 'requestId') != request_id OR JSONExtractInt(record, 'at') != toUnixTimestamp64Milli(at)
               OR JSONExtractString(record, 'reasonCode') != reason_code OR JSONExtractBool(record, 'stale') != stale
               OR ifNull(JSONExtract(record, 'selected', 'Nullable(String)'), '') != ifNull(selected_provider, '')) AS bad,
             countIf(toUnixTimestamp64Milli(at) < ${END - 12 * 3_600_000} OR toUnixTimestamp64Milli(at) >= ${END}) AS span
        FROM decision`);
    expect({ ...row, bad: Number(row!.bad), span: Number(row!.span) }).toEqual({ n: "3000", ids: "3000", bad: 0, span: 0 });
    const { rows } = await client.query<{ n: string }>("select (select count(*) from decision) + (select count(*) from provider_call_outcome) as n");
    expect(rows[0]!.n).toBe("0");
  });

  it("adds the rollup cells the log store would have: Postgres's decision_rollup equals the ClickHouse rows' cells", async () => {
    const cells = await chRows<Record<string, string>>(`
      SELECT toString(intDiv(toUnixTimestamp64Milli(at), 60000) * 60000) AS minute, operation, region, ifNull(selected_provider, '') AS p, reason_code,
             ifNull(policy_version, '') AS v, multiIf(shadow_agrees IS NULL, 'none', shadow_agrees, 'agree', 'disagree') AS s,
             toString(stale) AS stale, toString(degraded) AS degraded, source, ifNull(shadow_pick, '') AS sp, toString(count()) AS n
        FROM decision GROUP BY minute, operation, region, p, reason_code, v, s, stale, degraded, source, sp`);
    const { rows } = await client.query<Record<string, string>>(
      `select (extract(epoch from minute) * 1000)::bigint::text as minute, operation, region, selected_provider as p, reason_code, policy_version as v, shadow,
              stale::text, degraded::text, source, shadow_pick as sp, count::text as n from decision_rollup`,
    );
    const key = (r: Record<string, string>) =>
      [r.minute, r.operation, r.region, r.p, r.reason_code, r.v, r.s ?? r.shadow, r.stale, r.degraded, r.source, r.sp].join("|");
    const fromPg = new Map(rows.map((r) => [key(r), r.n]));
    expect(fromPg.size).toBe(cells.length);
    expect(cells.length).toBeGreaterThan(50);
    for (const c of cells) expect([key(c), fromPg.get(key(c))]).toEqual([key(c), c.n]);
  });

  it("writes both outcome kinds to ClickHouse, each for a stored decision", async () => {
    const [row] = await chRows<{ calls: string; business: string; orphans: string }>(`
      SELECT countIf(kind = 'call') AS calls, countIf(kind = 'business') AS business,
             countIf(decision_id NOT IN (SELECT id FROM decision)) AS orphans FROM outcome`);
    expect([row!.calls, row!.business, row!.orphans].map(Number)).toEqual([result.callOutcomes, result.businessOutcomes, 0]);
    expect(result.businessOutcomes).toBeGreaterThan(2_000);
  });

  it("merges each day into one part and reports the tables' sizes", async () => {
    const decision = result.clickHouseBytes?.find((t) => t.table === "decision");
    expect(decision?.rows).toBe(3_000);
    expect(decision!.compressed).toBeGreaterThan(0);
    expect(decision!.uncompressed).toBeGreaterThan(decision!.compressed);
    const parts = await chRows<{ partition: string; n: string }>(
      "SELECT partition, toString(count()) AS n FROM system.parts WHERE active AND table = 'decision' GROUP BY partition",
    );
    expect(parts.every((p) => p.n === "1")).toBe(true);
  });
});
