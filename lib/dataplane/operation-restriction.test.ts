import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { randomUUID } from "node:crypto";
import { createApiKey } from "../controlplane/api-keys/create-api-key";
import { SYSTEM_ACTOR } from "../audit/actor";
import { createGatewayEnv, type TGatewayEnv } from "../../test/support/gateway-fixtures";
import { openApiDocument } from "../edge/openapi";
import { uuidV7At } from "./decision-id";

/**
 * Issue 35 item 5: every data-plane route applies an API key's operation restriction. The routes
 * are read from the OpenAPI document the handlers register in, so a new route without a probe
 * here fails the first test; each probe acts, with a key restricted to SEND_SMS, on LLM_CHAT (a
 * decision made by another caller, its models, its execute route) and says what it expected.
 */
let env: TGatewayEnv;
let smsKey: string;
let chatDecision: string;

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- response shapes are asserted field by field
type TJson = any;

async function call(method: string, path: string, body?: unknown, key: string | null = smsKey): Promise<{ status: number; body: TJson }> {
  const res = await fetch(`${env.server.url}${path}`, {
    method,
    headers: { ...(body === undefined ? {} : { "content-type": "application/json" }), ...(key ? { authorization: `Bearer ${key}` } : {}) },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await res.text();
  let parsed: TJson = text;
  try {
    parsed = JSON.parse(text);
  } catch {
    // Prometheus text and the like stay text.
  }
  return { status: res.status, body: parsed };
}

type TProbe = { expected: string; run: () => Promise<{ ok: boolean; observed: string }> };

const seen = (r: { status: number; body: TJson }) => `${r.status} ${JSON.stringify(r.body).slice(0, 160)}`;

/** What each route must do for a SEND_SMS key asked about LLM_CHAT; "none" routes carry no per-operation data. */
const PROBES: Record<string, TProbe | { none: string }> = {
  "POST /api/v1/decide": {
    expected: "403 for LLM_CHAT",
    run: async () => {
      const r = await call("POST", "/api/v1/decide", { operation: "LLM_CHAT", region: "EU", requestId: randomUUID() });
      return { ok: r.status === 403, observed: seen(r) };
    },
  },
  "GET /api/v1/decisions/{id}": {
    expected: "404 for another caller's LLM_CHAT decision (existence not revealed)",
    run: async () => {
      const r = await call("GET", `/api/v1/decisions/${chatDecision}`);
      return { ok: r.status === 404 && r.body.error?.code === "decision_not_found", observed: seen(r) };
    },
  },
  "POST /api/v1/outcomes": {
    expected: "404 unknown_decision for an LLM_CHAT decision, nothing stored",
    run: async () => {
      const o = {
        type: "provider_call",
        decisionId: chatDecision,
        provider: "llm_openai",
        status: "failure",
        errorClass: "timeout",
        latencyMs: 1,
        retryCount: 0,
      };
      const r = await call("POST", "/api/v1/outcomes", o);
      const rows = await env.pool.query("select count(*)::int as n from provider_call_outcome where decision_id = $1", [chatDecision]);
      return { ok: r.status === 404 && r.body.error?.code === "unknown_decision" && rows.rows[0].n === 0, observed: seen(r) };
    },
  },
  "POST /api/v1/decisions/batch": {
    expected: "the LLM_CHAT item refused (forbidden, naming decisions.0.operation), nothing logged",
    run: async () => {
      const d = { decisionId: uuidV7At(Date.now()), operation: "LLM_CHAT", region: "EU", requestId: randomUUID(), selected: "llm_openai", mode: "local" };
      const r = await call("POST", "/api/v1/decisions/batch", { decisions: [d] });
      const item = r.body.results?.[0];
      const ok = r.status === 200 && item?.result === "refused" && item.error?.code === "forbidden" && item.error.fields?.[0]?.path === "decisions.0.operation";
      return { ok, observed: seen(r) };
    },
  },
  "POST /api/v1/decisions/counts": {
    expected: "the report refused (422, naming counts.0.operation), nothing counted",
    run: async () => {
      const minute = Math.floor(Date.now() / 60_000) * 60_000;
      const cell = { minute, operation: "LLM_CHAT", region: "EU", selected: "llm_openai", reasonCode: "share_weighted", policyVersion: null };
      const counts = [{ ...cell, shadow: "none", stale: false, degraded: false, source: "local", count: 5 }];
      const r = await call("POST", "/api/v1/decisions/counts", { clientInstance: randomUUID(), batchId: "b1", counts });
      const rows = await env.pool.query("select count(*)::int as n from decision_rollup where operation = 'LLM_CHAT' and source = 'local'");
      const ok = r.status === 422 && r.body.error?.fields?.[0]?.path === "counts.0.operation" && rows.rows[0].n === 0;
      return { ok, observed: seen(r) };
    },
  },
  "POST /api/v1/execute/{operation}": {
    expected: "403 for LLM_CHAT",
    run: async () => {
      const r = await call("POST", "/api/v1/execute/LLM_CHAT", { region: "EU", input: { messages: [{ role: "user", content: "hi" }] } });
      return { ok: r.status === 403, observed: seen(r) };
    },
  },
  "GET /api/v1/execute/jobs/{id}": {
    expected: "404 for a job the key did not queue (jobs are read by the key that queued them only)",
    run: async () => {
      const r = await call("GET", `/api/v1/execute/jobs/${randomUUID()}`);
      return { ok: r.status === 404, observed: seen(r) };
    },
  },
  "GET /api/v1/routing/snapshot": {
    expected: "a snapshot without LLM_CHAT",
    run: async () => {
      const r = await call("GET", "/api/v1/routing/snapshot");
      const ops = Object.keys(r.body.snapshot?.operations ?? {});
      return { ok: r.status === 200 && ops.includes("SEND_SMS") && !ops.includes("LLM_CHAT"), observed: `${r.status} operations ${ops.join(",")}` };
    },
  },
  "POST /api/v1/openai/chat/completions": {
    expected: "403 for model LLM_CHAT@EU",
    run: async () => {
      const r = await call("POST", "/api/v1/openai/chat/completions", { model: "LLM_CHAT@EU", messages: [{ role: "user", content: "hi" }] });
      return { ok: r.status === 403, observed: seen(r) };
    },
  },
  "POST /api/v1/openai/responses": {
    expected: "403 for model LLM_CHAT@EU",
    run: async () => {
      const r = await call("POST", "/api/v1/openai/responses", { model: "LLM_CHAT@EU", input: "hi" });
      return { ok: r.status === 403 && r.body.error?.type === "permission_error", observed: seen(r) };
    },
  },
  "GET /api/v1/openai/models": {
    expected: "no LLM_CHAT model listed",
    run: async () => {
      const r = await call("GET", "/api/v1/openai/models");
      const ids: string[] = (r.body.data ?? []).map((m: { id: string }) => m.id);
      return { ok: r.status === 200 && !ids.some((id) => id.startsWith("LLM_CHAT")), observed: `${r.status} models ${ids.join(",") || "none"}` };
    },
  },
  "GET /api/v1/openai/models/{model}": {
    expected: "404 for LLM_CHAT@EU",
    run: async () => {
      const r = await call("GET", "/api/v1/openai/models/LLM_CHAT@EU");
      return { ok: r.status === 404, observed: seen(r) };
    },
  },
  "POST /api/v1/anthropic/v1/messages": {
    expected: "403 for model LLM_CHAT@EU",
    run: async () => {
      const r = await call("POST", "/api/v1/anthropic/v1/messages", { model: "LLM_CHAT@EU", max_tokens: 16, messages: [{ role: "user", content: "hi" }] });
      return { ok: r.status === 403, observed: seen(r) };
    },
  },
  "GET /api/v1/openapi.json": { none: "the API's description, the same for every caller" },
  "GET /api/v1/health": { none: "instance health (its scope is issue 35 item 11)" },
  "GET /api/v1/metrics": { none: "Prometheus scrape (its scope is issue 35 item 11)" },
};

beforeAll(async () => {
  env = await createGatewayEnv();
  smsKey = (await createApiKey(env.prisma, SYSTEM_ACTOR, { name: "sms-service", scopes: ["decide", "outcomes", "read"], operationKeys: ["SEND_SMS"] })).key;
  // Another service's LLM_CHAT decision (the embedded demo lets a call without a key through).
  const d = await call("POST", "/api/v1/decide", { operation: "LLM_CHAT", region: "EU", requestId: randomUUID() }, null);
  expect(d.status).toBe(200);
  chatDecision = d.body.decisionId;
}, 120_000);

afterAll(async () => {
  await env?.close();
});

describe("a key restricted to SEND_SMS, on every data-plane route", () => {
  const routes = () =>
    Object.entries((openApiDocument({ version: "test" }) as { paths: Record<string, Record<string, unknown>> }).paths).flatMap(([path, methods]) =>
      Object.keys(methods).map((m) => `${m.toUpperCase()} ${path}`),
    );

  it("has a probe for every route the OpenAPI document lists", () => {
    const missing = routes().filter((r) => !(r in PROBES));
    expect(missing, "routes without an operation-restriction probe").toEqual([]);
  });

  it("cannot reach another operation's data or act on it through any of them", async () => {
    const table: string[] = [];
    let holes = 0;
    for (const route of routes()) {
      const probe = PROBES[route];
      if (!probe || "none" in probe) continue;
      const { ok, observed } = await probe.run();
      if (!ok) holes++;
      table.push(`${ok ? "held" : "HOLE"}  ${route} → expected ${probe.expected} → observed ${observed}`);
    }
    console.log(table.join("\n"));
    expect(holes, table.filter((l) => l.startsWith("HOLE")).join("\n")).toBe(0);
  });
});
