import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTestDatabase, type TTestDatabase } from "@/test/support/database";
import { maintainPartitions } from "@/lib/dataplane/decision-log/partitions";
import { insertDecisions, type TDecisionRow } from "@/lib/dataplane/decision-log/rows";
import { ROW_REFERENCE_INSTANCE, startRowReferenceServer } from "./bench-api-reference";

let db: TTestDatabase;
let pool: pg.Pool;

beforeAll(async () => {
  db = await createTestDatabase();
  pool = new pg.Pool({ connectionString: db.url, max: 2 });
  pool.on("error", () => {});
  await maintainPartitions(pool, { now: Date.now(), daysAhead: 1, retentionDays: 0 });
});
afterAll(async () => {
  await pool?.end();
  await db?.drop();
});

/** A row as decide writes it: split record, candidate list stored once, every column set. */
const template: TDecisionRow = {
  id: crypto.randomUUID(),
  createdAt: Date.now(),
  operation: "SEND_SMS",
  region: "EU",
  requestId: "decide-1",
  policyVersion: "v7",
  shadowVersion: "v8",
  selectedProvider: "provider_A",
  reasonCode: "share_weighted",
  shadowPick: "provider_B",
  shadowAgrees: false,
  scoreMargin: 0.25,
  stale: false,
  metricAgeMs: 1500,
  fallbackAction: null,
  degraded: false,
  body: "",
  durability: "sync",
  instanceId: "bench-api",
  apiKeyId: "key-1",
  offeredProviders: "provider_A,provider_B",
  source: "server",
};
const RECORD = '{"decisionId":"d","operation":"SEND_SMS","candidates":null,"stale":false}';
const LIST = { id: crypto.randomUUID(), json: '[{"provider":"provider_A","eligible":true},{"provider":"provider_B","eligible":true}]' };

describe("the row reference", () => {
  it("refuses to start before decide has written a row to copy", async () => {
    await expect(startRowReferenceServer(db.url)).rejects.toThrow(/exited with code 1/);
  });

  it("writes decide's row, with only the id, time, region and requestId its own, through the decision log", async () => {
    const client = await pool.connect();
    try {
      await insertDecisions(client, [{ row: template, stored: { text: RECORD, list: LIST } }]);
    } finally {
      client.release();
    }
    const ref = await startRowReferenceServer(db.url);
    try {
      const ids: string[] = [];
      for (const [i, region] of ["NA", "APAC"].entries()) {
        const res = await fetch(`http://127.0.0.1:${ref.port}/api/v1/decide`, {
          method: "POST",
          headers: { "content-type": "application/json" },
          body: JSON.stringify({ operation: "SEND_SMS", region, requestId: `row-${i}` }),
        });
        expect(res.status).toBe(200);
        ids.push(((await res.json()) as { decisionId: string }).decisionId);
      }
      const rows = (
        await pool.query(
          `select id, region, request_id, policy_version, shadow_version, selected_provider, reason_code, shadow_pick, shadow_agrees,
                  score_margin, metric_age_ms, api_key_id, offered_providers, candidates_id, source, decision_record_text(record, candidates_id, created_at) as text
             from decision where instance_id = $1 order by request_id`,
          [ROW_REFERENCE_INSTANCE],
        )
      ).rows;
      expect(rows.map((r) => r.id).sort()).toEqual([...ids].sort());
      expect(rows.map((r) => [r.region, r.request_id])).toEqual([
        ["NA", "row-0"],
        ["APAC", "row-1"],
      ]);
      for (const r of rows) {
        expect(r).toMatchObject({
          policy_version: "v7",
          shadow_version: "v8",
          selected_provider: "provider_A",
          reason_code: "share_weighted",
          shadow_pick: "provider_B",
          shadow_agrees: false,
          score_margin: 0.25,
          metric_age_ms: 1500,
          api_key_id: "key-1",
          offered_providers: "provider_A,provider_B",
          candidates_id: LIST.id,
          source: "server",
        });
        // The stored record and its list, as decide stored them.
        expect(r.text).toBe(RECORD.replace('"candidates":null', `"candidates":${LIST.json}`));
      }
      // Counted like decide's rows: its pending rollup cells were written with them.
      const pending = await pool.query<{ n: string }>("select coalesce(sum(count), 0) as n from decision_rollup_pending");
      const rolled = await pool.query<{ n: string }>("select coalesce(sum(count), 0) as n from decision_rollup");
      expect(Number(pending.rows[0]!.n) + Number(rolled.rows[0]!.n)).toBe(3);
    } finally {
      await ref.stop();
    }
  });
});
