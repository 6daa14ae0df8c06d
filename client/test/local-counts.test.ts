import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { decide } from "../../router-core/index";
import { createApiKey } from "../../lib/controlplane/api-keys/create-api-key";
import { SYSTEM_ACTOR } from "../../lib/audit/actor";
import { getServedSeries } from "../../lib/console/traffic/get-served-series";
import { createGatewayEnv, type TGatewayEnv } from "../../test/support/gateway-fixtures";
import { LocalRouter, SwitchyardClient, type TDecision } from "../src/index";

// Every local decision is counted exactly (per-minute count reports), every non-routine one has
// its full record, routine ones a sample carrying its rate; the console's counts equal the
// client's own. bench/local/bench-local.ts runs the same at 10,000 decisions/s.

let env: TGatewayEnv;
const MINUTE = 60_000;

beforeAll(async () => {
  env = await createGatewayEnv();
  process.env.DATABASE_URL = env.db.url;
}, 120_000);
afterAll(async () => {
  await env?.close();
});

async function until(what: string, check: () => boolean | Promise<boolean>, timeoutMs = 20_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

type TRecord = { override?: string; stale?: boolean; fallback?: unknown; shadow?: { agrees: boolean } | null };
const nonRoutine = (d: TDecision) => {
  const r = d.record as unknown as TRecord;
  return d.selected === null || r.stale === true || (r.fallback ?? null) !== null || (r.override ?? "none") !== "none" || r.shadow?.agrees === false;
};

/** `rate` decisions per second for `seconds`, in 10 ms ticks, over two regions (NA pinned: every decision there is non-routine). */
async function load(router: LocalRouter, rate: number, seconds: number): Promise<TDecision[]> {
  const made: TDecision[] = [];
  const start = performance.now();
  for (let tick = 0; tick < seconds * 100; tick++) {
    const due = Math.round(((tick + 1) * rate) / 100) - Math.round((tick * rate) / 100);
    for (let i = 0; i < due; i++) made.push(router.decide({ operation: "SEND_SMS", region: made.length % 4 === 0 ? "NA" : "EU" }));
    const wait = start + (tick + 1) * 10 - performance.now();
    if (wait > 0) await new Promise((r) => setTimeout(r, wait));
  }
  return made;
}

describe("local decisions counted, all of them", () => {
  it("counts every decision exactly, records every non-routine one and a sample of routine ones", async () => {
    await env.pool.query(
      `insert into override (id, kind, operation_key, region, provider_key, reason) values (gen_random_uuid(), 'provider_pin', 'SEND_SMS', 'NA', 'provider_C', 'counts test')`,
    );
    const client = new SwitchyardClient({ baseUrl: env.server.url, flushOnExit: false, buffer: { flushIntervalMs: 200 } });
    const router = new LocalRouter({ client, engine: { decide }, waitMs: 2_000 });
    await router.start();
    // Outcomes for EU, so decisions there are made on fresh metrics (routine) once the snapshot has them.
    const asked: TDecision[] = [];
    for (let i = 0; i < 40; i++) {
      const d = await client.decide({ operation: "SEND_SMS", region: "EU" });
      asked.push(d);
      client.reportOutcome({ type: "provider_call", decisionId: d.decisionId, provider: d.selected!, status: "success", latencyMs: 20, retryCount: 0 });
      client.reportOutcome({ type: "business", decisionId: d.decisionId, provider: d.selected!, completed: true, withinSla: true });
    }
    await client.flush();
    // Decisions made while waiting for the metrics and the pin to arrive are counted like the others.
    const made: TDecision[] = [];
    await until("fresh metrics in the snapshot", () => {
      const d = router.decide({ operation: "SEND_SMS", region: "EU" });
      made.push(d);
      return !(d.record as unknown as TRecord).stale;
    });
    await until("the pin in the snapshot", () => {
      try {
        const d = router.decide({ operation: "SEND_SMS", region: "NA" });
        made.push(d);
        return (d.record as unknown as TRecord).override === "pinned";
      } catch {
        return false;
      }
    });
    made.push(...(await load(router, 2_000, 2)));
    await router.close();
    await client.close();
    await until("everything reported", async () => {
      await client.flush().catch(() => {});
      const s = client.stats();
      return s.counts.pending === 0 && s.local.pending === 0;
    });
    const stats = client.stats();
    expect(stats.counts).toEqual({ made: made.length, reported: made.length, refused: 0, dropped: 0, pending: 0 });
    expect(stats.local.dropped).toBe(0);

    // The console's served-share counts equal the client's own (local, and the decisions it asked Switchyard for), provider by provider, in each region.
    for (const region of ["EU", "NA"]) {
      const own: Record<string, number> = {};
      for (const d of [...made, ...asked]) if (d.region === region) own[d.selected ?? "none"] = (own[d.selected ?? "none"] ?? 0) + 1;
      const served = await getServedSeries("SEND_SMS", region, "24h", Date.now() + MINUTE);
      const seen: Record<string, number> = {};
      for (const p of served.points) {
        for (const [provider, n] of Object.entries(p.counts)) seen[provider] = (seen[provider] ?? 0) + n;
        if (p.unserved > 0) seen.none = (seen.none ?? 0) + p.unserved;
      }
      expect(seen).toEqual(own);
    }

    // Every non-routine decision has its record; routine ones a sample, each with its rate.
    const wanted = made.filter(nonRoutine).map((d) => d.decisionId);
    expect(wanted.length).toBeGreaterThan(made.length / 5);
    const { rows: found } = await env.pool.query<{ n: number }>(`select count(*)::int as n from decision where id = any($1::uuid[])`, [wanted]);
    expect(found[0]!.n).toBe(wanted.length);
    const { rows: sampled } = await env.pool.query<{ rate: string; n: number }>(
      `select record->>'sampleRate' as rate, count(*)::int as n from decision where source = 'local' group by 1 order by 1`,
    );
    expect(sampled.map((r) => r.rate)).toEqual(["0.01", "1"]);
    expect(sampled[0]!.n).toBe(stats.local.reported - wanted.length);
    expect(stats.local.sampledOut + stats.local.reported).toBe(made.length);

    // An outcome for a decision left out of the sample: its report goes first (no full record), so the outcome is taken.
    const { rows: logged } = await env.pool.query<{ id: string }>(`select id::text as id from decision where id = any($1::uuid[])`, [
      made.map((d) => d.decisionId),
    ]);
    const has = new Set(logged.map((r) => r.id));
    const unsampled = made.filter((d) => d.source === "local" && !has.has(d.decisionId)).at(-1)!;
    client.reportOutcome({
      type: "provider_call",
      decisionId: unsampled.decisionId,
      provider: unsampled.selected!,
      status: "success",
      latencyMs: 9,
      retryCount: 0,
    });
    await client.flush();
    const after = client.stats();
    expect(after.outcomes.refused).toBe(0);
    expect(after.local).toMatchObject({ sampledOut: stats.local.sampledOut - 1, reported: stats.local.reported + 1, made: made.length });
    const { rows: stub } = await env.pool.query(
      `select d.record->>'sampleRate' as rate, d.source, o.status from decision d join provider_call_outcome o on o.decision_id = d.id::text where d.id = $1`,
      [unsampled.decisionId],
    );
    expect(stub).toEqual([{ rate: "0.01", source: "local", status: "success" }]);
  }, 60_000);

  it("takes a report once per (client instance, minute, batch) and refuses what the key may not report", async () => {
    const minute = Math.floor(Date.now() / MINUTE) * MINUTE;
    const cell = { minute, operation: "SEND_SMS", region: "EU", selected: "provider_A", reasonCode: "share_weighted", policyVersion: null };
    const base = { ...cell, shadow: "none", stale: false, degraded: false, source: "local", count: 7 };
    const send = (body: unknown, key?: string) =>
      fetch(`${env.server.url}/api/v1/decisions/counts`, {
        method: "POST",
        headers: { "content-type": "application/json", ...(key ? { authorization: `Bearer ${key}` } : {}) },
        body: JSON.stringify(body),
      });
    const rolled = async () =>
      Number(
        (
          await env.pool.query<{ n: string }>(
            `select coalesce(sum(count), 0) as n from decision_rollup where source = 'local' and reason_code = 'share_weighted'`,
          )
        ).rows[0]!.n,
      );
    const before = await rolled();
    const report = { clientInstance: "c1", batchId: "b1", counts: [base, { ...base, region: "NA", selected: "provider_C", count: 3 }] };
    expect(await (await send(report)).json()).toEqual({ counted: 10, duplicate: false });
    expect(await (await send(report)).json()).toEqual({ counted: 0, duplicate: true });
    expect(await rolled()).toBe(before + 10);

    const refused = async (body: unknown, key?: string) => {
      const res = await send(body, key);
      return [res.status, ((await res.json()) as { error: { fields?: Array<{ path: string }> } }).error.fields?.[0]?.path];
    };
    const one = (over: Record<string, unknown>) => ({ clientInstance: "c1", batchId: `b-${Math.random()}`, counts: [{ ...base, ...over }] });
    expect(await refused(one({ selected: "no_such_provider" }))).toEqual([422, "counts.0.selected"]);
    expect(await refused(one({ policyVersion: "v999" }))).toEqual([422, "counts.0.policyVersion"]);
    expect(await refused(one({ minute: minute - 8 * 86_400_000 }))).toEqual([422, "counts.0.minute"]);
    expect(await refused(one({ minute: minute + 1 }))).toEqual([400, "counts.0.minute"]);
    expect(await refused(one({ count: 1_000_001 }))).toEqual([400, "counts.0.count"]);
    expect(await refused(one({ reasonCode: "made_up" }))).toEqual([400, "counts.0.reasonCode"]);
    const { key } = await createApiKey(env.prisma, SYSTEM_ACTOR, { name: "chat-only", scopes: ["decide"], operationKeys: ["LLM_CHAT"] });
    expect(await refused(one({}), key)).toEqual([422, "counts.0.operation"]);
    expect(await rolled()).toBe(before + 10);
  });
});
