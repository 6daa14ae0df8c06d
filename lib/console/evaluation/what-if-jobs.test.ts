import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createPrisma, type PrismaClient } from "../../db/client";
import { createTestDatabase, type TTestDatabase } from "../../../test/support/database";
import { makeUser, refusal, seedCatalog, WEIGHTS_YAML } from "../../../test/support/controlplane-fixtures";
import { createFactorListDraft } from "../../controlplane/factor-lists/create-factor-list-draft";
import { maintainPartitions } from "../../dataplane/decision-log/partitions";
import { addRollupDeltas } from "../../dataplane";
import { HISTOGRAM_BUCKETS } from "../../../router-core/metrics/histogram";
import type { TWhatIfView } from "./evaluation-types";
import { getWhatIf, requestWhatIf } from "./what-if-jobs";

let db: TTestDatabase;
let prisma: PrismaClient;
let pool: pg.Pool;
let draftId: string;

beforeAll(async () => {
  db = await createTestDatabase();
  process.env.DATABASE_URL = db.url;
  prisma = createPrisma(db.url);
  pool = new pg.Pool({ connectionString: db.url, max: 2 });
  await seedCatalog(prisma);
  await maintainPartitions(pool, { now: Date.now(), daysAhead: 1, retentionDays: 0 });
  const { actor } = await makeUser(prisma, ["policy_author"]);
  draftId = (await createFactorListDraft(prisma, actor, { yaml: WEIGHTS_YAML(), changeNote: "what-if test" })).id;
});

afterAll(async () => {
  await pool.end();
  await prisma.$disconnect();
  await db.drop();
});

/**
 * `perMinute` decisions a minute in EU on provider_A for `minutes` whole minutes before the last
 * 5-minute boundary (where the replayed range ends), and A's metric buckets (all completed).
 * The rows are inserted as the log writes them: with their rollup cell, which range counts read.
 */
async function record(minutes: number, perMinute: number) {
  const now = Math.floor(Date.now() / 300_000) * 300_000;
  const latency = new Array<number>(HISTOGRAM_BUCKETS).fill(0);
  latency[Math.floor(HISTOGRAM_BUCKETS / 3)] = perMinute;
  for (let m = 1; m <= minutes; m++) {
    const at = new Date(now - m * 60_000);
    await pool.query(
      `INSERT INTO decision (id, created_at, operation, region, request_id, selected_provider, reason_code, stale, record, durability, instance_id)
       SELECT gen_random_uuid(), $1::timestamptz + (g * interval '1 second'), 'SEND_SMS', 'EU', 'r-' || $2 || '-' || g, 'provider_A', 'selected', false, '{}', 'sync', 'test'
         FROM generate_series(1, $3) g`,
      [at, m, perMinute],
    );
    const client = await pool.connect();
    try {
      await addRollupDeltas(client, [
        {
          minute: at.getTime(),
          operation: "SEND_SMS",
          region: "EU",
          selectedProvider: "provider_A",
          reasonCode: "selected",
          policyVersion: "",
          shadow: "none",
          stale: false,
          degraded: false,
          source: "server",
          shadowPick: "",
          count: perMinute,
        },
      ]);
    } finally {
      client.release();
    }
    await pool.query(
      `INSERT INTO metric_bucket (provider_key, operation_key, region, bucket_start, width_ms, calls, latency_counts, completions)
       VALUES ('provider_A', 'SEND_SMS', 'EU', $1, 60000, $2, $3, $2)`,
      [at, perMinute, latency],
    );
  }
}

async function settled(hours: 1 | 3 | 6): Promise<TWhatIfView> {
  for (let i = 0; i < 1200; i++) {
    const view = await getWhatIf({ version: draftId, hours });
    if (view.status?.state === "done" || view.status?.state === "failed") return view;
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error("the what-if did not finish");
}

describe("the approval page's what-if", { timeout: 180_000 }, () => {
  it("says there is nothing to replay when the range holds no decisions", async () => {
    const view = await requestWhatIf({ version: draftId, hours: 1 }, "test");
    expect(view.unavailable).toMatch(/^no recorded decisions for SEND_SMS between/);
    expect(view.status).toBeNull();
    // The page's polls say so too, not "not computed yet" (a poll answering after the start
    // request would otherwise hide the reason and keep the page waiting).
    const polled = await getWhatIf({ version: draftId, hours: 1 });
    expect(polled.unavailable).toBe(view.unavailable);
    expect((await getWhatIf({ version: draftId, hours: 3 })).unavailable).toBeNull();
  });

  it("replays the version over recorded decisions and buckets on the worker, next to what happened", async () => {
    await record(30, 20);
    const windowAt = () => Math.floor(Date.now() / 300_000);
    let asked = windowAt();
    const queued = await requestWhatIf({ version: draftId, hours: 1 }, "author@test");
    expect(queued.status?.state).toMatch(/queued|running/);
    expect(queued.unavailable).toBeNull();
    const view = await settled(1);
    expect(view.status?.error).toBeNull();
    const r = view.result!;
    expect(r.requests).toBe(600);
    expect(r.actualSuccessRate).toBe(1);
    expect(r.providers.find((p) => p.provider === "provider_A")?.actualShare).toBe(1);
    expect(r.providers.map((p) => p.provider).sort()).toEqual(["provider_A", "provider_B", "provider_C"]);
    expect(r.projectedSuccessRate).toBeGreaterThan(0.95);
    expect(r.minutes).toHaveLength(60);
    // 30 recorded minutes of the hour asked: the page must say the what-if covers only those.
    expect(r.coverage).toMatchObject({ askedMinutes: 60, recordedMinutes: 30 });
    // B and C served nothing in the recording: the report says their behaviour was assumed.
    expect(r.assumed.map((a) => a.provider).sort()).toEqual(["provider_B", "provider_C"]);
    // The same inputs within the 5-minute window share the job. On a slow machine the replay may
    // outlast the window: then the author asks again in the new one first.
    let again: TWhatIfView | null = null;
    for (let tries = 0; tries < 3; tries++) {
      const now = windowAt();
      if (now !== asked) {
        await requestWhatIf({ version: draftId, hours: 1 }, "author@test");
        asked = now;
      }
      again = await requestWhatIf({ version: draftId, hours: 1 }, "approver@test");
      if (windowAt() === asked) break;
    }
    expect(again?.status?.requestedBy).toBe("author@test");
  });

  it("names the field of a bad request", async () => {
    const bad = await refusal(requestWhatIf({ version: "nope", hours: 2 }, "test"));
    expect([bad.status, bad.code]).toEqual([400, "malformed"]);
    expect(bad.fields.map((f) => f.path).sort()).toEqual(["hours", "version"]);
    const unknown = await refusal(getWhatIf({ version: "00000000-0000-4000-8000-000000000000" }));
    expect(unknown.fields).toEqual([{ path: "version", message: 'no factor-list version "00000000-0000-4000-8000-000000000000"' }]);
  });
});
