import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { listDecisions } from "@/lib/console/decisions/list-decisions";
import { getShareSeries } from "@/lib/console/traffic/get-share-series";
import { getPrisma } from "@/lib/db/client";
import { createTestDatabase, type TTestDatabase } from "@/test/support/database";
import { seedScale, type TSeedScaleResult } from "./seed";

// A small seeded window exercises the whole seed path (simulation, bulk load into detached
// partitions, re-attach, index rebuild) and gives the console read models a realistic data set.

let db: TTestDatabase;
let client: pg.Client;
let result: TSeedScaleResult;
let indexesBefore: Record<string, number>;
const END = Date.UTC(2031, 2, 14, 15, 0, 0);

async function indexCount(table: string): Promise<number> {
  const { rows } = await client.query<{ n: string }>("select count(*) as n from pg_indexes where schemaname = current_schema() and tablename = $1", [table]);
  return Number(rows[0]!.n);
}

beforeAll(async () => {
  db = await createTestDatabase();
  client = new pg.Client({ connectionString: db.url });
  await client.connect();
  indexesBefore = {};
  for (const t of ["provider_call_outcome", "business_outcome", "traffic_share_sample", "shift_event"]) indexesBefore[t] = await indexCount(t);
  result = await seedScale({ databaseUrl: db.url, decisions: 4_000, days: 0.5, end: END, sampleMs: 30_000, batch: 700 });
  process.env.DATABASE_URL = db.url;
}, 240_000);

afterAll(async () => {
  await getPrisma().$disconnect();
  await client.end();
  await db.drop();
});

describe("seedScale", () => {
  it("writes exactly the decisions asked for, each row's columns agreeing with its record", async () => {
    expect(result.decisions).toBe(4_000);
    const { rows } = await client.query<{ n: string; bad: string; span: string }>(
      `
      select count(*) as n,
             count(*) filter (where record->>'id' <> id::text or record->>'decisionId' <> id::text or record->>'requestId' <> request_id
               or (record->>'at')::bigint <> round(extract(epoch from created_at) * 1000)::bigint
               or record->>'selected' is distinct from selected_provider or record->>'reasonCode' <> reason_code
               or (record->>'stale')::bool <> stale or record->>'policyVersion' is distinct from policy_version) as bad,
             count(*) filter (where created_at < $1 or created_at >= $2) as span
        from decision`,
      [new Date(END - 12 * 3_600_000), new Date(END)],
    );
    expect(rows[0]).toEqual({ n: "4000", bad: "0", span: "0" });
    const { rows: ids } = await client.query<{ n: string }>("select count(distinct id) as n from decision");
    expect(ids[0]!.n).toBe("4000");
  });

  it("writes the decision rollup the server would have: every decision once, per minute and dimension", async () => {
    const { rows } = await client.query<{ cells: string; decisions: string; mismatched: string }>(`
      with raw as (
        select date_bin('1 minute', created_at, timestamptz 'epoch') as minute, operation, region, coalesce(selected_provider, '') as p, reason_code,
               coalesce(policy_version, '') as v, case when shadow_agrees is null then 'none' when shadow_agrees then 'agree' else 'disagree' end as s,
               stale, degraded, source, coalesce(shadow_pick, '') as sp, count(*) as n
          from decision group by 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11)
      select (select count(*) from decision_rollup) as cells, (select sum(count) from decision_rollup) as decisions,
             (select count(*) from raw full join decision_rollup r
                 on (r.minute, r.operation, r.region, r.selected_provider, r.reason_code, r.policy_version, r.shadow, r.stale, r.degraded, r.source, r.shadow_pick)
                  = (raw.minute, raw.operation, raw.region, raw.p, raw.reason_code, raw.v, raw.s, raw.stale, raw.degraded, raw.source, raw.sp)
               where r.count is distinct from raw.n) as mismatched`);
    expect(rows[0]!.decisions).toBe("4000");
    expect(Number(rows[0]!.cells)).toBeGreaterThan(100);
    expect(rows[0]!.mismatched).toBe("0");
  });

  it("re-attaches every daily partition with the parent's indexes and rebuilds the other tables' indexes", async () => {
    const { rows } = await client.query<{ name: string; indexes: string }>(`
      select c.relname as name, (select count(*) from pg_index i where i.indrelid = c.oid) as indexes
        from pg_inherits h join pg_class c on c.oid = h.inhrelid where h.inhparent = 'decision'::regclass`);
    const parent = await indexCount("decision");
    const days = new Set<string>();
    for (let t = END - 12 * 3_600_000; t < END; t += 3_600_000) days.add(`decision_p${new Date(t).toISOString().slice(0, 10).replaceAll("-", "")}`);
    for (const d of days) expect(rows.find((r) => r.name === d)?.indexes, d).toBe(String(parent));
    for (const [t, n] of Object.entries(indexesBefore)) expect(await indexCount(t), t).toBe(n);
    const { rows: strays } = await client.query("select relname from pg_class where relname ~ '^decision_p[0-9]{8}$' and relkind = 'r' and not relispartition");
    expect(strays).toEqual([]);
  });

  it("reports outcomes for most decisions, each for a logged decision", async () => {
    const { rows } = await client.query<{ decided: string; orphans: string }>(`
      select count(distinct b.decision_id) as decided,
             count(*) filter (where not exists (select 1 from decision d where d.id::text = b.decision_id)) as orphans
        from business_outcome b`);
    const share = Number(rows[0]!.decided) / 4_000;
    expect(share).toBeGreaterThan(0.85);
    expect(share).toBeLessThan(0.99);
    expect(rows[0]!.orphans).toBe("0");
  });

  it("records the degradation episode: breaker transitions and the controller moving traffic off the failing provider", async () => {
    const { rows: breakers } = await client.query<{ to_state: string }>(
      "select to_state from breaker_event where provider_key = 'provider_A' and region = 'EU' order by at",
    );
    expect(breakers.map((b) => b.to_state).slice(0, 2)).toEqual(["open", "half_open"]);
    const { rows: shifts } = await client.query<{ type: string }>("select distinct type from shift_event where operation_key = 'SEND_SMS' and region = 'EU'");
    expect(shifts.map((s) => s.type)).toContain("circuit_open_shift_to_secondary");
  });

  it("refuses to seed over existing decisions without reset", async () => {
    await expect(seedScale({ databaseUrl: db.url, decisions: 10, days: 0.1, end: END })).rejects.toThrow(/--reset/);
  });
});

describe("console read models on the seeded log", () => {
  it("share chart: the last sample in each bucket, as a full scan of the samples finds it", async () => {
    const series = await getShareSeries("SEND_SMS", "EU", "24h", END);
    const { rows } = await client.query<{ b: string; shares: Record<string, number> }>(
      `
      select distinct on (b) (floor(extract(epoch from at) / 600) * 600)::bigint as b, shares
        from traffic_share_sample where operation_key = 'SEND_SMS' and region = 'EU' and at > $1 and at <= $2
       order by b, at desc`,
      [new Date(END - 86_400_000), new Date(END)],
    );
    expect(series.points.length).toBeGreaterThan(10);
    expect(series.points).toEqual(rows.map((r) => ({ t: Number(r.b) * 1000, shares: r.shares })));
  });

  it("decision list: keyset pages of an outcome filter cover exactly the matching decisions, newest first", async () => {
    const from = new Date(END - 12 * 3_600_000).toISOString();
    for (const outcome of ["failed", "pending", "completed"] as const) {
      const seen: string[] = [];
      let after: string | undefined;
      for (;;) {
        const page = await listDecisions({ from, outcome, after }, 200, END);
        seen.push(...page.rows.map((r) => r.id));
        if (!page.next) break;
        after = page.next;
      }
      const cond = outcome === "pending" ? "not exists" : "exists";
      const extra = outcome === "failed" ? "and not b.completed" : outcome === "completed" ? "and b.completed" : "";
      const { rows } = await client.query<{ id: string }>(
        `select d.id::text as id from decision d where d.created_at >= $1 and ${cond} (select 1 from business_outcome b where b.decision_id = d.id::text ${extra})
          order by d.created_at desc, d.id desc`,
        [from],
      );
      expect(seen, outcome).toEqual(rows.map((r) => r.id));
    }
  });

  it("decision list: the stale filter (a partial index) returns exactly the stale or the fresh decisions", async () => {
    const from = new Date(END - 12 * 3_600_000).toISOString();
    for (const stale of ["true", "false"] as const) {
      const seen: string[] = [];
      let after: string | undefined;
      for (;;) {
        const page = await listDecisions({ from, stale, after }, 500, END);
        seen.push(...page.rows.map((r) => r.id));
        if (!page.next) break;
        after = page.next;
      }
      const { rows } = await client.query<{ id: string }>(
        `select d.id::text as id from decision d where d.created_at >= $1 and d.stale = $2 order by d.created_at desc, d.id desc`,
        [from, stale === "true"],
      );
      expect(seen, stale).toEqual(rows.map((r) => r.id));
    }
    const plan = await client.query<{ "QUERY PLAN": string }>(
      `explain select id from decision where stale and created_at >= now() - interval '1 day' order by created_at desc limit 50`,
    );
    // The partition holding the seeded rows is read through the partial index (empty ones may be seq-scanned at no cost).
    expect(plan.rows.map((r) => r["QUERY PLAN"]).join("\n")).toMatch(/Index Scan[^\n]* using decision_p\d+_stale_created_at_idx/);
  });
});
