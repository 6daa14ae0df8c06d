import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createAuthenticator, setAuthenticator } from "../../lib/edge/authenticate";
import { createGatewayEnv, type TGatewayEnv } from "../../test/support/gateway-fixtures";
import { freePort } from "../../test/support/free-port";
import { startService, type TService } from "./service";

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- answers are asserted field by field
type TJson = any;

let env: TGatewayEnv;
let service: TService;
const API_KEY = "example-test-key";

beforeAll(async () => {
  env = await createGatewayEnv({ apiKey: API_KEY });
  setAuthenticator(createAuthenticator({ apiKey: API_KEY, allowAnonymousWithoutKey: false }));
  const providerUrls = { provider_A: env.mocks.provider_A.url, provider_B: env.mocks.provider_B.url, provider_C: env.mocks.provider_B.url };
  service = await startService({ switchyardUrl: env.server.url, apiKey: API_KEY, providerUrls });
});
afterAll(async () => {
  await service?.close();
  await env?.close();
});

const post = async (base: string, path: string, body: unknown): Promise<{ status: number; json: TJson }> => {
  const r = await fetch(`${base}${path}`, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify(body) });
  return { status: r.status, json: await r.json() };
};

describe("examples/sms-and-chat", () => {
  it("sends an SMS through the provider Switchyard picked and reports the outcome", async () => {
    const r = await post(service.url, "/sms", { to: "+4915112345678", text: "code 1234" });
    expect(r.status).toBe(200);
    expect(r.json).toMatchObject({ sent: true, failStatic: false, source: "switchyard" });
    expect(r.json.provider).toMatch(/^provider_[ABC]$/);
    expect(env.mocks.provider_A.requests.length + env.mocks.provider_B.requests.length).toBeGreaterThanOrEqual(1);
    await service.switchyard.flush();
    const rows = await env.pool.query(`select provider_key, status from provider_call_outcome where decision_id = $1`, [r.json.decisionId]);
    expect(rows.rows).toEqual([{ provider_key: r.json.provider, status: "success" }]);
  });

  it("decides in process with local: true, and the decision and its outcome reach the log", async () => {
    const r = await post(service.url, "/sms", { to: "+4915100000000", text: "local", local: true });
    expect(r.status).toBe(200);
    expect(r.json).toMatchObject({ sent: true, failStatic: false, source: "local" });
    await service.switchyard.flush();
    const rows = await env.pool.query(
      `select d.record->>'mode' as mode, o.status from decision d join provider_call_outcome o on o.decision_id = d.id::text where d.id = $1`,
      [r.json.decisionId],
    );
    expect(rows.rows).toEqual([{ mode: "local", status: "success" }]);
  });

  it("fails over along the decision's order when the chosen provider is down", async () => {
    env.mocks.provider_A.setAlways({ type: "status", status: 503 });
    env.mocks.provider_B.setAlways({ type: "status", status: 503 });
    try {
      const r = await post(service.url, "/sms", { to: "+1555", text: "x" });
      expect(r.status).toBe(502);
      await service.switchyard.flush();
      const rows = await env.pool.query(`select count(*)::int as n from provider_call_outcome where decision_id = $1 and status = 'failure'`, [
        r.json.decisionId,
      ]);
      expect(rows.rows[0].n).toBeGreaterThanOrEqual(2);
    } finally {
      env.mocks.provider_A.setAlways(null);
      env.mocks.provider_B.setAlways(null);
    }
  });

  it("chats through the OpenAI-compatible endpoint", async () => {
    const r = await post(service.url, "/chat", { prompt: "hello" });
    expect(r.status).toBe(200);
    expect(r.json).toMatchObject({ text: "Hello from openai", provider: "llm_openai", usage: { total_tokens: 17 } });
    expect(r.json.decisionId).toMatch(/^[0-9a-f-]{36}$/);
  });

  it("keeps sending while Switchyard is unreachable (fail-static from the static order)", async () => {
    const dead = `http://127.0.0.1:${await freePort()}`;
    const offline = await startService({
      switchyardUrl: dead,
      apiKey: API_KEY,
      providerUrls: { provider_A: env.mocks.provider_A.url, provider_B: env.mocks.provider_B.url },
    });
    try {
      const r = await post(offline.url, "/sms", { to: "+33612345678", text: "code 9" });
      expect(r.status).toBe(200);
      expect(r.json).toMatchObject({ sent: true, failStatic: true, source: "static", provider: "provider_A" });
      expect(offline.switchyard.stats().failStatic).toMatchObject({ made: 1, pending: 1 });
    } finally {
      await offline.close();
    }
  });
});
