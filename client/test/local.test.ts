import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { decide } from "../../router-core/index";
import { createAuthenticator, setAuthenticator } from "../../lib/edge/authenticate";
import { createGatewayEnv, type TGatewayEnv } from "../../test/support/gateway-fixtures";
import { LocalRouter, SwitchyardClient } from "../src/index";

const API_KEY = "local-test-key";
let env: TGatewayEnv;
let client: SwitchyardClient;
let router: LocalRouter;
const versions: Array<{ version: string; at: number }> = [];

beforeAll(async () => {
  env = await createGatewayEnv({ apiKey: API_KEY });
  setAuthenticator(createAuthenticator({ apiKey: API_KEY, allowAnonymousWithoutKey: false }));
  client = new SwitchyardClient({ baseUrl: env.server.url, apiKey: API_KEY, flushOnExit: false, buffer: { flushIntervalMs: 100 } });
  // Every record sent (sampleRate 1), so each one can be looked up; local-counts.test.ts covers the sample.
  router = new LocalRouter({ client, engine: { decide }, waitMs: 5_000, sampleRate: 1, onSnapshot: (version, at) => versions.push({ version, at }) });
  await router.start();
});
afterAll(async () => {
  await router?.close();
  await client?.close();
  await env?.close();
});

async function until(what: string, check: () => boolean | Promise<boolean>, timeoutMs = 15_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 10));
  }
}

describe("LocalRouter: in-process decisions on the routing snapshot", () => {
  it("decides with router-core in process and logs every record, marked local", async () => {
    expect(router.version).toMatch(/\./);
    const made = Array.from({ length: 50 }, () => router.decide({ operation: "SEND_SMS", region: "EU" }));
    for (const d of made) {
      expect(d).toMatchObject({ source: "local", failStatic: false });
      expect(d.selected).toMatch(/^provider_[ABC]$/);
      expect(d.record?.candidates.length).toBeGreaterThan(0);
      expect(d.record?.decisionId ?? d.record?.id).toBe(d.decisionId);
    }
    await until("every local decision to be logged", () => client.stats().local.pending === 0);
    expect(client.stats().local).toEqual({ made: 50, reported: 50, refused: 0, dropped: 0, pending: 0, sampledOut: 0 });
    const rows = await env.pool.query(
      `select count(*)::int as n, count(*) filter (where record->>'mode' = 'local' and (record->>'local')::boolean)::int as marked from decision where id = any($1::uuid[])`,
      [made.map((d) => d.decisionId)],
    );
    expect(rows.rows[0]).toEqual({ n: 50, marked: 50 });
    // Outcomes attach to local decisions like to any other.
    client.reportOutcome({
      type: "provider_call",
      decisionId: made[0]!.decisionId,
      provider: made[0]!.selected!,
      status: "success",
      latencyMs: 3,
      retryCount: 0,
    });
    await until("the outcome", () => client.stats().outcomes.sent === 1);
  });

  it("keeps the accounting when decisions outrun the buffer (made = reported + dropped), and prints the in-process rate", async () => {
    const small = new SwitchyardClient({ baseUrl: env.server.url, apiKey: API_KEY, flushOnExit: false, buffer: { flushIntervalMs: 0, maxDecisions: 1_000 } });
    const local = new LocalRouter({ client: small, engine: { decide }, sampleRate: 1 });
    await local.start();
    await local.close();
    const n = 100_000;
    const t0 = performance.now();
    for (let i = 0; i < n; i++) local.decide({ operation: "SEND_SMS", region: "EU", requestId: `r${i}` });
    const ms = performance.now() - t0;
    process.stdout.write(`local decide with full records into the client's buffer: ${Math.round(n / (ms / 1000))}/s\n`);
    expect(small.stats().local).toEqual({ made: n, reported: 0, refused: 0, dropped: n - 1_000, pending: 1_000, sampledOut: 0 });
    await small.flush().catch((err: unknown) => process.stdout.write(`flush: ${String(err)}\n`));
    expect(small.stats().local).toEqual({ made: n, reported: 1_000, refused: 0, dropped: n - 1_000, pending: 0, sampledOut: 0 });
    await small.close();
  }, 60_000);

  it("serves the snapshot the router decides on, resumable by version", async () => {
    const fresh = await client.snapshot(null, 0);
    expect(Object.keys(fresh!.snapshot.operations)).toContain("SEND_SMS");
    expect(Object.keys(fresh!.snapshot.operations.SEND_SMS!.regions)).toContain("EU");
  });

  it("follows an operator's pin into its decisions, and back when it ends", async () => {
    // NA: the demo catalogue requires gdpr for SMS in EU, which provider_C does not hold.
    const before = router.version;
    const pinned = await env.pool.query<{ id: string }>(
      `insert into override (id, kind, operation_key, region, provider_key, reason) values (gen_random_uuid(), 'provider_pin', 'SEND_SMS', 'NA', 'provider_C', 'local router test') returning id`,
    );
    const notifiedAt = Date.now();
    await env.pool.query(`select pg_notify('switchyard_config', '{"kind":"override","operationKey":"SEND_SMS"}')`);
    await until("local decisions to follow the pin", () => router.decide({ operation: "SEND_SMS", region: "NA" }).selected === "provider_C");
    const reflected = versions.find((v) => v.version !== before && v.at >= notifiedAt);
    expect(reflected).toBeDefined();
    const d = router.decide({ operation: "SEND_SMS", region: "NA" });
    expect(d.record).toMatchObject({ selected: "provider_C", override: "pinned" });
    process.stdout.write(`override → local decisions: ${reflected!.at - notifiedAt} ms\n`);

    await env.pool.query(`update override set ended_at = now() where id = $1`, [pinned.rows[0]!.id]);
    await env.pool.query(`select pg_notify('switchyard_config', '{"kind":"override","operationKey":"SEND_SMS"}')`);
    await until("the pin to end", () => router.decide({ operation: "SEND_SMS", region: "NA" }).record?.override === "none");
  });
});
