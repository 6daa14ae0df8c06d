import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { randomUUID } from "node:crypto";
import { createApiKey } from "../controlplane/api-keys/create-api-key";
import { SYSTEM_ACTOR } from "../audit/actor";
import { createGatewayEnv, type TGatewayEnv } from "../../test/support/gateway-fixtures";

/**
 * Issue 35 items 4 and 6: services sharing one data plane. A requestId or Idempotency-Key is the
 * calling key's own; an outcome names only a provider its decision offered, within a bound per
 * decision and provider, costs rate budget per item, and is stored with the key that reported it.
 */
let env: TGatewayEnv;
let victim: { key: string; id: string };
let attacker: { key: string; id: string };
const previousLimit = process.env.API_KEY_RATE_LIMIT;

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- response shapes are asserted field by field
type TJson = any;

async function call(key: string, method: string, path: string, body: unknown, headers: Record<string, string> = {}) {
  const res = await fetch(`${env.server.url}${path}`, {
    method,
    headers: { "content-type": "application/json", authorization: `Bearer ${key}`, ...headers },
    body: JSON.stringify(body),
  });
  return { status: res.status, headers: res.headers, body: (await res.json()) as TJson };
}

async function newKey(name: string) {
  const k = await createApiKey(env.prisma, SYSTEM_ACTOR, { name, scopes: ["decide", "outcomes", "read"], operationKeys: [] });
  return { key: k.key, id: k.apiKey.id };
}

beforeAll(async () => {
  // Every governance key gets 200 requests of burst, refilled at 1/s: enough for these tests, few enough to run out.
  process.env.API_KEY_RATE_LIMIT = "1/200";
  env = await createGatewayEnv();
  victim = await newKey("checkout");
  attacker = await newKey("attacker");
}, 120_000);

afterAll(async () => {
  if (previousLimit === undefined) delete process.env.API_KEY_RATE_LIMIT;
  else process.env.API_KEY_RATE_LIMIT = previousLimit;
  await env?.close();
});

describe("a requestId or Idempotency-Key is the calling key's own", () => {
  it("decide: another key's same requestId gets a fresh decision, never the first caller's or a 422 naming its region", async () => {
    const requestId = `order-${randomUUID()}`;
    const first = await call(attacker.key, "POST", "/api/v1/decide", { operation: "SEND_SMS", region: "NA", requestId });
    expect(first.status).toBe(200);
    const real = await call(victim.key, "POST", "/api/v1/decide", { operation: "SEND_SMS", region: "EU", requestId });
    expect(real.status).toBe(200);
    expect(real.body.decisionId).not.toBe(first.body.decisionId);
    const same = await call(victim.key, "POST", "/api/v1/decide", { operation: "SEND_SMS", region: "NA", requestId: `x-${requestId}` });
    const copy = await call(attacker.key, "POST", "/api/v1/decide", { operation: "SEND_SMS", region: "NA", requestId: `x-${requestId}` });
    expect(copy.headers.get("idempotent-replayed")).toBeNull();
    expect(copy.body.decisionId).not.toBe(same.body.decisionId);
    // The same key's retry is still answered with its own decision, and a reuse for another region names only its own.
    const retry = await call(victim.key, "POST", "/api/v1/decide", { operation: "SEND_SMS", region: "EU", requestId });
    expect(retry.body.decisionId).toBe(real.body.decisionId);
    const rows = await env.pool.query("select api_key_id from decision where id = any($1::uuid[]) order by created_at", [
      [first.body.decisionId, real.body.decisionId],
    ]);
    expect(rows.rows.map((r) => r.api_key_id)).toEqual([attacker.id, victim.id]);
  });

  it("execute: another key's same Idempotency-Key runs its own request, and providers see two different keys", async () => {
    const key = `order-${randomUUID()}`;
    const body = (region: string) => ({ region, input: { to: "+4915100000000", text: "code 1" } });
    const claimed = await call(attacker.key, "POST", "/api/v1/execute/SEND_SMS", body("NA"), { "idempotency-key": key });
    expect(claimed.status).toBe(200);
    const real = await call(victim.key, "POST", "/api/v1/execute/SEND_SMS", body("EU"), { "idempotency-key": key });
    expect(real.status).toBe(200);
    expect(real.headers.get("idempotent-replayed")).toBeNull();
    expect(real.body.decisionId).not.toBe(claimed.body.decisionId);
    expect(JSON.stringify(real.body)).not.toContain('"NA"');
    const copy = await call(attacker.key, "POST", "/api/v1/execute/SEND_SMS", body("EU"), { "idempotency-key": `${key}-2` });
    const victimCopy = await call(victim.key, "POST", "/api/v1/execute/SEND_SMS", body("EU"), { "idempotency-key": `${key}-2` });
    expect(victimCopy.headers.get("idempotent-replayed")).toBeNull();
    expect(victimCopy.body.decisionId).not.toBe(copy.body.decisionId);
    const upstream = [...env.mocks.provider_A.requests, ...env.mocks.provider_B.requests]
      .map((r) => r.headers["idempotency-key"])
      .filter((k) => typeof k === "string" && k.endsWith(key));
    expect(upstream).toHaveLength(2);
    expect(new Set(upstream).size).toBe(2);
  });

  it("OpenAI surface: another key's same Idempotency-Key gets its own completion, not the first caller's", async () => {
    const key = `chat-${randomUUID()}`;
    const chat = (k: string) =>
      call(
        k,
        "POST",
        "/api/v1/openai/chat/completions",
        { model: "LLM_CHAT@EU", messages: [{ role: "user", content: "Say hello" }] },
        { "idempotency-key": key },
      );
    const first = await chat(attacker.key);
    expect(first.status).toBe(200);
    const second = await chat(victim.key);
    expect(second.status).toBe(200);
    expect(second.headers.get("idempotent-replayed")).toBeNull();
    expect(second.body.id).not.toBe(first.body.id);
    const again = await chat(victim.key);
    expect(again.headers.get("idempotent-replayed")).toBe("true");
    expect(again.body.id).toBe(second.body.id);
  });
});

describe("outcomes from a key that shares the data plane", () => {
  const failure = (decisionId: string, provider: string) => ({
    type: "provider_call",
    decisionId,
    provider,
    status: "failure",
    errorClass: "http_5xx",
    latencyMs: 10,
    retryCount: 0,
  });

  it("names only a provider the decision offered, at most a bounded number per provider, stored with the reporting key", async () => {
    const d = await call(attacker.key, "POST", "/api/v1/decide", { operation: "SEND_SMS", region: "EU", requestId: randomUUID(), explain: "full" });
    expect(d.status).toBe(200);
    const decisionId: string = d.body.decisionId;
    const offered = (d.body.candidates as Array<{ provider: string; eligible: boolean }>).filter((c) => c.eligible).map((c) => c.provider);
    const foreign = (await env.pool.query("select key from provider where key <> all($1::text[]) order by key limit 1", [offered])).rows[0].key;
    const r = await call(attacker.key, "POST", "/api/v1/outcomes", {
      outcomes: [failure(decisionId, foreign), ...Array.from({ length: 5 }, () => failure(decisionId, d.body.selected))],
    });
    expect(r.status).toBe(200);
    expect(r.body.results.map((x: { status: number }) => x.status)).toEqual([422, 201, 201, 201, 409, 409]);
    expect(r.body.results[0].error.fields).toEqual([{ path: "provider", message: expect.stringContaining("was not offered") }]);
    const rows = await env.pool.query("select provider_key, api_key_id from provider_call_outcome where decision_id = $1", [decisionId]);
    expect(rows.rows).toEqual(Array.from({ length: 3 }, () => ({ provider_key: d.body.selected, api_key_id: attacker.id })));
    const business = await call(victim.key, "POST", "/api/v1/outcomes", { type: "business", decisionId, completed: true, withinSla: true });
    expect(business.status).toBe(201);
    const b = await env.pool.query("select api_key_id from business_outcome where decision_id = $1", [decisionId]);
    expect(b.rows).toEqual([{ api_key_id: victim.id }]);
  });

  it("costs one request of the key's rate per item, not one per batch", async () => {
    const reporter = await newKey("reporter");
    const d = await call(reporter.key, "POST", "/api/v1/decide", { operation: "SEND_SMS", region: "EU", requestId: randomUUID() });
    const batch = Array.from({ length: 199 }, () => ({ type: "business", decisionId: d.body.decisionId, completed: true, withinSla: true }));
    const r = await call(reporter.key, "POST", "/api/v1/outcomes", { outcomes: batch });
    expect(r.status).toBe(200);
    // The burst (200) is spent: the decide and 199 items. The next call waits for the bucket to refill.
    const next = await call(reporter.key, "POST", "/api/v1/decide", { operation: "SEND_SMS", region: "EU", requestId: randomUUID() });
    expect(next.status).toBe(429);
    expect(next.body.error.code).toBe("rate_limited");
  });
});
