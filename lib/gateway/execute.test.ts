import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { DecisionLogBusyError } from "../dataplane/decision-log/writer";
import { createGatewayEnv, TEST_SECRETS, type TGatewayEnv } from "../../test/support/gateway-fixtures";

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- response shapes are asserted field by field
type TJson = any;

let env: TGatewayEnv;
/** Every response body and header this file saw: none may contain a credential. */
const seen: string[] = [];

beforeAll(async () => {
  env = await createGatewayEnv();
});
afterAll(async () => {
  await env?.close();
});
beforeEach(() => {
  for (const m of Object.values(env.mocks)) {
    m.setFaults([]);
    m.setAlways(null);
    m.requests.length = 0;
  }
});

const chat = (text = "Say hello", extra: Record<string, unknown> = {}) => ({
  region: "EU",
  input: { messages: [{ role: "user", content: text }], maxTokens: 64 },
  ...extra,
});

async function post(
  operation: string,
  body: unknown,
  headers: Record<string, string> = {},
): Promise<{ status: number; json: TJson; headers: Headers; text: string }> {
  const res = await fetch(`${env.server.url}/api/v1/execute/${operation}`, {
    method: "POST",
    headers: { "content-type": "application/json", ...headers },
    body: JSON.stringify(body),
  });
  const text = await res.text();
  seen.push(text, JSON.stringify([...res.headers.entries()]));
  let json: TJson = null;
  try {
    json = JSON.parse(text);
  } catch {
    json = null;
  }
  return { status: res.status, json, headers: res.headers, text };
}

function sseEvents(text: string): Array<{ event: string; data: TJson }> {
  return text
    .split("\n\n")
    .filter((b) => b.trim() !== "")
    .map((block) => {
      const event = /^event: (.*)$/m.exec(block)?.[1] ?? "message";
      const data = /^data: (.*)$/m.exec(block)?.[1] ?? "null";
      return { event, data: JSON.parse(data) };
    });
}

async function callOutcomes(
  decisionId: string,
): Promise<Array<{ provider_key: string; status: string; error_class: string | null; http_status: number | null; retry_count: number }>> {
  await env.server.gateway.flush();
  const r = await env.pool.query(
    `select provider_key, status, error_class::text, http_status, retry_count from provider_call_outcome where decision_id = $1 order by retry_count`,
    [decisionId],
  );
  return r.rows;
}

const upstreamCalls = () => Object.values(env.mocks).reduce((n, m) => n + m.requests.length, 0);

describe("POST /api/v1/execute/:operation", () => {
  it("routes, calls the provider with its credential, answers the normalised result and records the decision and outcome", async () => {
    const r = await post("LLM_CHAT", chat());
    expect(r.status).toBe(200);
    expect(r.json.provider).toBe("llm_openai");
    expect(r.json.result).toMatchObject({ text: "Hello from openai", finishReason: "stop", usage: { inputTokens: 12, outputTokens: 5 } });
    expect(r.json.attempts).toEqual([expect.objectContaining({ provider: "llm_openai", errorClass: null, httpStatus: 200, called: true })]);
    expect(r.json.costEstimate).toBeCloseTo((12 * 0.00015 + 5 * 0.0006) / 1000, 12);
    expect(r.headers.get("x-decision-durability")).toBe("committed");
    const upstream = env.mocks.llm_openai.requests[0]!;
    expect(upstream.path).toBe("/v1/chat/completions");
    expect(upstream.headers.authorization).toBe(`Bearer ${TEST_SECRETS.OPENAI_API_KEY}`);
    expect(upstream.body).toMatchObject({ model: "gpt-4o-mini", max_tokens: 64, messages: [{ role: "user", content: "Say hello" }] });

    const decision = await fetch(`${env.server.url}/api/v1/decisions/${r.json.decisionId}`).then((x) => x.json() as Promise<TJson>);
    seen.push(JSON.stringify(decision));
    expect(decision.selected).toBe("llm_openai");
    expect(decision.mode).toBe("execute");
    expect(await callOutcomes(r.json.decisionId)).toEqual([
      { provider_key: "llm_openai", status: "success", error_class: null, http_status: 200, retry_count: 0 },
    ]);
  });

  it.each([
    ["a 500", { type: "status", status: 500 }, "http_5xx"],
    ["a 503", { type: "status", status: 503 }, "http_5xx"],
    ["a connection reset", { type: "reset" }, "network"],
    ["malformed JSON", { type: "malformed_json" }, "other"],
  ] as const)("fails over to the next eligible provider on %s and records both attempts", async (_name, fault, outcomeClass) => {
    env.mocks.llm_openai.setFaults([fault]);
    const r = await post("LLM_CHAT", chat());
    expect(r.status).toBe(200);
    expect(r.json.provider).not.toBe("llm_openai");
    expect(r.json.attempts).toHaveLength(2);
    expect(r.json.attempts[0]).toMatchObject({ provider: "llm_openai", errorClass: "transient", outcomeErrorClass: outcomeClass });
    expect(r.json.attempts[1]).toMatchObject({ provider: r.json.provider, errorClass: null });
    expect(r.json.result.text).toMatch(/^Hello from (anthropic|gemini)$/);
    const outcomes = await callOutcomes(r.json.decisionId);
    expect(outcomes.map((o) => [o.provider_key, o.status, o.error_class])).toEqual([
      ["llm_openai", "failure", outcomeClass],
      [r.json.provider, "success", null],
    ]);
  });

  it("fails over on a timeout after the adapter's timeout", async () => {
    await env.prisma.providerAdapter.update({ where: { providerKey: "llm_openai" }, data: { timeoutMs: 300 } });
    await env.reload();
    try {
      env.mocks.llm_openai.setFaults([{ type: "timeout" }]);
      const r = await post("LLM_CHAT", chat());
      expect(r.status).toBe(200);
      expect(r.json.attempts[0]).toMatchObject({ provider: "llm_openai", errorClass: "transient", outcomeErrorClass: "timeout" });
      expect(r.json.attempts[0].latencyMs).toBeGreaterThanOrEqual(290);
    } finally {
      await env.prisma.providerAdapter.update({ where: { providerKey: "llm_openai" }, data: { timeoutMs: 30_000 } });
      await env.reload();
    }
  });

  it("does not fail over on a 4xx: the provider's status and body come back as they were", async () => {
    env.mocks.llm_openai.setFaults([{ type: "status", status: 400, body: { error: { message: "messages too long", type: "invalid_request_error" } } }]);
    const r = await post("LLM_CHAT", chat());
    expect(r.status).toBe(400);
    expect(r.json.error.code).toBe("provider_rejected");
    expect(r.json.providerBody).toEqual({ error: { message: "messages too long", type: "invalid_request_error" } });
    expect(r.json.attempts).toEqual([expect.objectContaining({ provider: "llm_openai", errorClass: "permanent", httpStatus: 400 })]);
    expect(env.mocks.llm_anthropic.requests).toHaveLength(0);
    expect(env.mocks.llm_gemini.requests).toHaveLength(0);
    expect((await callOutcomes(r.json.decisionId))[0]).toMatchObject({ status: "failure", error_class: "http_4xx", http_status: 400 });
  });

  it("never returns a credential, even when the provider echoes it", async () => {
    env.mocks.llm_openai.setFaults([
      { type: "status", status: 401, body: { error: { message: `Incorrect API key provided: ${TEST_SECRETS.OPENAI_API_KEY}` } } },
    ]);
    const r = await post("LLM_CHAT", chat());
    expect(r.status).toBe(401);
    expect(r.json.providerBody.error.message).toBe("Incorrect API key provided: [redacted]");
    const everything = seen.join("\n");
    for (const secret of Object.values(TEST_SECRETS)) expect(everything).not.toContain(secret);
  });

  it("honours a 429's Retry-After: fails over, and later decisions avoid the provider until the reset", async () => {
    env.mocks.llm_openai.setFaults([{ type: "status", status: 429, headers: { "retry-after": "1" } }]);
    const r = await post("LLM_CHAT", chat());
    expect(r.status).toBe(200);
    expect(r.json.attempts[0]).toMatchObject({ provider: "llm_openai", errorClass: "rate_limit", outcomeErrorClass: "throttled", httpStatus: 429 });
    const next = await post("LLM_CHAT", chat());
    expect(next.json.provider).not.toBe("llm_openai");
    expect(env.mocks.llm_openai.requests).toHaveLength(1);
    const decision = await fetch(`${env.server.url}/api/v1/decisions/${next.json.decisionId}`).then((x) => x.json() as Promise<TJson>);
    const openai = decision.candidates.find((c: TJson) => c.provider === "llm_openai");
    expect(openai.gates.find((g: TJson) => g.gate === "quota_available")).toMatchObject({ passed: false });
    // Past the reset and its one-second recovery ramp, the primary takes traffic again.
    await new Promise((resolve) => setTimeout(resolve, 3_000));
    expect((await post("LLM_CHAT", chat())).json.provider).toBe("llm_openai");
  });

  it("answers 503 with Retry-After when every provider fails, after at most max_attempts calls", async () => {
    for (const m of [env.mocks.llm_openai, env.mocks.llm_anthropic, env.mocks.llm_gemini]) m.setFaults([{ type: "status", status: 503 }]);
    const r = await post("LLM_CHAT", chat());
    expect(r.status).toBe(503);
    expect(r.json.error.code).toBe("all_attempts_failed");
    expect(r.headers.get("retry-after")).toBe("1");
    expect(r.json.attempts).toHaveLength(3);
    expect(upstreamCalls()).toBe(3);
  });

  it("stops failing over when the retry budget is spent", async () => {
    await env.prisma.gatewayOperation.update({ where: { operationKey: "LLM_CHAT" }, data: { retryBudgetRatio: 0, retryBudgetMinPerSecond: 0 } });
    await env.reload();
    try {
      env.mocks.llm_openai.setFaults([{ type: "status", status: 500 }]);
      const r = await post("LLM_CHAT", chat());
      expect(r.status).toBe(503);
      expect(r.json.error.code).toBe("retry_budget_exhausted");
      expect(r.json.attempts).toHaveLength(1);
      expect(env.mocks.llm_anthropic.requests.length + env.mocks.llm_gemini.requests.length).toBe(0);
    } finally {
      await env.prisma.gatewayOperation.update({ where: { operationKey: "LLM_CHAT" }, data: { retryBudgetRatio: 0.2, retryBudgetMinPerSecond: 3 } });
      await env.reload();
    }
  });

  it("calls the provider once for N concurrent identical requests with an Idempotency-Key, and replays the answer later", async () => {
    env.mocks.llm_openai.setFaults([{ type: "slow_first_byte", delayMs: 150 }]);
    const key = `idem-${Date.now()}`;
    const answers = await Promise.all(Array.from({ length: 8 }, () => post("LLM_CHAT", chat(), { "idempotency-key": key })));
    expect(upstreamCalls()).toBe(1);
    expect(new Set(answers.map((a) => a.text)).size).toBe(1);
    expect(answers.filter((a) => a.headers.get("idempotent-replayed") === "true")).toHaveLength(7);
    const later = await post("LLM_CHAT", chat(), { "idempotency-key": key });
    expect(later.headers.get("idempotent-replayed")).toBe("true");
    expect(later.json.decisionId).toBe(answers[0]!.json.decisionId);
    expect(upstreamCalls()).toBe(1);
    // requestId in the body is the key when there is no header.
    const a = await post("LLM_CHAT", chat("x", { requestId: `rid-${key}` }));
    const b = await post("LLM_CHAT", chat("x", { requestId: `rid-${key}` }));
    expect(b.json.decisionId).toBe(a.json.decisionId);
    expect(upstreamCalls()).toBe(2);
  });

  it("excludes a provider whose context window is too small, with the gate's detail in the decision", async () => {
    await env.prisma.providerAdapter.update({ where: { providerKey: "llm_openai" }, data: { contextWindow: 100 } });
    await env.reload();
    try {
      const r = await post("LLM_CHAT", chat("x".repeat(400)));
      expect(r.status).toBe(200);
      expect(r.json.provider).not.toBe("llm_openai");
      expect(env.mocks.llm_openai.requests).toHaveLength(0);
      const decision = await fetch(`${env.server.url}/api/v1/decisions/${r.json.decisionId}`).then((x) => x.json() as Promise<TJson>);
      const openai = decision.candidates.find((c: TJson) => c.provider === "llm_openai");
      expect(openai).toMatchObject({ eligible: false, passedGates: false });
      expect(openai.gates).toEqual([
        { gate: "context_window_fits", passed: false, detail: "request needs about 168 tokens; gpt-4o-mini's context window is 100" },
      ]);
      // Small requests still go to the primary.
      expect((await post("LLM_CHAT", chat())).json.provider).toBe("llm_openai");
    } finally {
      await env.prisma.providerAdapter.update({ where: { providerKey: "llm_openai" }, data: { contextWindow: 128_000 } });
      await env.reload();
    }
  });

  it("answers 422 when the request exceeds every provider's context window", async () => {
    const r = await post("LLM_CHAT", chat("x", { input: { messages: [{ role: "user", content: "x".repeat(200_000) }], maxTokens: 1_000_000 } }));
    expect(r.status).toBe(422);
    expect(r.json.error).toMatchObject({ code: "context_window_exceeded", fields: [{ path: "input.messages" }] });
    expect(upstreamCalls()).toBe(0);
  });

  it("stops spending at the per-minute cost cap: the fallback policy answers and an event is recorded", async () => {
    // Spend is per wall-clock minute: keep the whole test inside one.
    const intoMinute = Date.now() % 60_000;
    if (intoMinute > 57_000) await new Promise((resolve) => setTimeout(resolve, 60_100 - intoMinute));
    // Earlier tests spent in this minute too: the cap lets exactly one more call through.
    const cap = env.server.gateway.context.budget.snapshot("LLM_CHAT").spentMinute + 1e-9;
    await env.prisma.gatewayOperation.update({ where: { operationKey: "LLM_CHAT" }, data: { costCapPerMinute: cap } });
    await env.reload();
    try {
      expect((await post("LLM_CHAT", chat())).status).toBe(200);
      const refused = await post("LLM_CHAT", chat());
      expect(refused.status).toBe(503);
      expect(refused.json).toMatchObject({ error: { code: "capacity_exhausted" }, budget: "cost_cap_minute", fallback: { action: "degraded_message" } });
      expect(Number(refused.headers.get("retry-after"))).toBeGreaterThanOrEqual(1);
      expect(upstreamCalls()).toBe(1);
      await env.server.gateway.flush();
      const events = await env.pool.query(`select type, detail, evidence from shift_event where operation_key = 'LLM_CHAT' and type = 'budget_breach'`);
      expect(events.rows[0]?.detail).toMatch(/^spend this minute [\d.e-]+ \(all instances\) reached the cap of [\d.e-]+$/);
      expect(events.rows[0]?.evidence).toMatchObject({ kind: "cost_cap_minute", capPerMinute: cap });
    } finally {
      await env.prisma.gatewayOperation.update({ where: { operationKey: "LLM_CHAT" }, data: { costCapPerMinute: null } });
      await env.reload();
    }
  });

  it("after the maximum fallback duration only the primary may serve; when it cannot, the fallback policy answers", async () => {
    await env.prisma.gatewayOperation.update({ where: { operationKey: "LLM_CHAT" }, data: { maxFallbackSeconds: 0 } });
    await env.reload();
    try {
      env.mocks.llm_openai.setFaults([{ type: "status", status: 500 }]);
      const fallback = await post("LLM_CHAT", chat());
      expect(fallback.json.provider).not.toBe("llm_openai");
      await new Promise((resolve) => setTimeout(resolve, 20));
      env.mocks.llm_openai.setFaults([{ type: "status", status: 500 }]);
      const r = await post("LLM_CHAT", chat());
      expect(r.status).toBe(503);
      expect(r.json.attempts).toEqual([expect.objectContaining({ provider: "llm_openai", httpStatus: 500 })]);
      expect(env.mocks.llm_anthropic.requests.length + env.mocks.llm_gemini.requests.length).toBe(1);
      const decision = await fetch(`${env.server.url}/api/v1/decisions/${r.json.decisionId}`).then((x) => x.json() as Promise<TJson>);
      const others = decision.candidates.filter((c: TJson) => c.provider !== "llm_openai");
      expect(others.map((c: TJson) => c.gates[0].gate)).toEqual(["max_fallback_duration", "max_fallback_duration"]);
      await env.server.gateway.flush();
      const events = await env.pool.query(`select type from shift_event where operation_key = 'LLM_CHAT' and type = 'max_fallback_duration'`);
      expect(events.rowCount).toBe(1);
      // The primary serving again ends the fallback period.
      expect((await post("LLM_CHAT", chat())).json.provider).toBe("llm_openai");
      expect((await post("LLM_CHAT", chat("again"))).status).toBe(200);
    } finally {
      await env.prisma.gatewayOperation.update({ where: { operationKey: "LLM_CHAT" }, data: { maxFallbackSeconds: null } });
      await env.reload();
    }
  });

  it("uses the Anthropic and Gemini adapters with their own request shapes", async () => {
    const a = await post(
      "LLM_CHAT",
      chat("hi", {
        attributes: { providers: "llm_anthropic" },
        input: {
          messages: [
            { role: "system", content: "be brief" },
            { role: "user", content: "hi" },
          ],
          maxTokens: 32,
        },
      }),
    );
    expect(a.json).toMatchObject({ provider: "llm_anthropic", result: { text: "Hello from anthropic", finishReason: "end_turn" } });
    const up = env.mocks.llm_anthropic.requests[0]!;
    expect(up.path).toBe("/v1/messages");
    expect(up.headers["x-api-key"]).toBe(TEST_SECRETS.ANTHROPIC_API_KEY);
    expect(up.body).toMatchObject({ system: "be brief", max_tokens: 32, messages: [{ role: "user", content: "hi" }] });
    const g = await post("LLM_CHAT", chat("hi", { attributes: { providers: "llm_gemini" } }));
    expect(g.json).toMatchObject({
      provider: "llm_gemini",
      result: { text: "Hello from gemini", finishReason: "STOP", usage: { inputTokens: 12, outputTokens: 5 } },
    });
    const gu = env.mocks.llm_gemini.requests[0]!;
    expect(gu.path).toBe("/v1beta/models/gemini-2.0-flash:generateContent");
    expect(gu.headers["x-goog-api-key"]).toBe(TEST_SECRETS.GEMINI_API_KEY);
    expect(gu.body).toMatchObject({ contents: [{ role: "user", parts: [{ text: "hi" }] }], generationConfig: { maxOutputTokens: 64 } });
  });

  it("calls a generic HTTP/JSON provider through its templates, and names a missing input field", async () => {
    const r = await post("SEND_SMS", { region: "EU", input: { to: "+4915112345678", text: "Your code is 123456" } });
    expect(r.status).toBe(200);
    expect(["provider_A", "provider_B"]).toContain(r.json.provider);
    const up = env.mocks[r.json.provider as "provider_A"].requests[0]!;
    expect(up.path).toBe("/sms/%2B4915112345678");
    expect(up.headers.authorization).toBe(`Bearer ${TEST_SECRETS.SMS_API_KEY}`);
    expect(up.body).toEqual({ to: "+4915112345678", text: "Your code is 123456", reference: expect.any(String) });
    expect(r.json.result.body).toMatchObject({ status: "accepted" });
    const bad = await post("SEND_SMS", { region: "EU", input: { text: "no recipient" } });
    expect(bad.status).toBe(422);
    expect(bad.json.error).toMatchObject({ code: "invalid_input", fields: [{ path: "input.to" }] });
  });

  it("calls no provider when the decision log refuses the decision", async () => {
    const log = env.server.dataPlane.decisionLog;
    const submit = log.submit;
    log.submit = () => Promise.reject(new DecisionLogBusyError("decision log buffer is full (1 decisions)", 1));
    try {
      const r = await post("LLM_CHAT", chat());
      expect(r.status).toBe(503);
      expect(r.json.error.code).toBe("decision_log_unavailable");
      expect(r.headers.get("retry-after")).toBe("1");
      const s = await post("LLM_CHAT", chat("hi", { stream: true }));
      expect(s.status).toBe(503);
      expect(upstreamCalls()).toBe(0);
    } finally {
      log.submit = submit;
    }
  });

  it("rejects malformed input with 400 and semantically invalid input with 422, naming the field", async () => {
    const empty = await post("LLM_CHAT", { region: "EU", input: { messages: [] } });
    expect([empty.status, empty.json.error]).toMatchObject([400, { code: "malformed", fields: [{ path: "input.messages" }] }]);
    const noRegion = await post("LLM_CHAT", { input: {} });
    expect([noRegion.status, noRegion.json.error]).toMatchObject([400, { code: "malformed", fields: [{ path: "region" }] }]);
    const mars = await post("LLM_CHAT", chat("x", { region: "MARS" }));
    expect([mars.status, mars.json.error]).toMatchObject([422, { code: "invalid", fields: [{ path: "region" }] }]);
    const nope = await post("NOPE", chat());
    expect([nope.status, nope.json.error]).toMatchObject([422, { code: "invalid", fields: [{ path: "operation" }] }]);
    const stream = await post("SEND_SMS", { region: "EU", input: { to: "1" }, stream: true });
    expect([stream.status, stream.json.error]).toMatchObject([422, { code: "invalid", fields: [{ path: "stream" }] }]);
  });
});

describe("streaming", () => {
  it("streams start, deltas and done with the time to first byte", async () => {
    const r = await post("LLM_CHAT", chat("hi", { stream: true }));
    expect(r.status).toBe(200);
    expect(r.headers.get("content-type")).toMatch(/text\/event-stream/);
    const events = sseEvents(r.text);
    expect(events[0]).toMatchObject({ event: "start", data: { provider: "llm_openai" } });
    expect(
      events
        .filter((e) => e.event === "delta")
        .map((e) => e.data.text)
        .join(""),
    ).toBe("Hello from openai");
    const done = events.at(-1)!;
    expect(done.event).toBe("done");
    expect(done.data).toMatchObject({ finishReason: "stop", usage: { inputTokens: 12, outputTokens: 3 } });
    expect(done.data.ttfbMs).toBeGreaterThan(0);
    expect(done.data.attempts[0].ttfbMs).toBe(done.data.ttfbMs);
    expect(await callOutcomes(done.data.decisionId)).toEqual([expect.objectContaining({ provider_key: "llm_openai", status: "success" })]);
    const stored = await env.pool.query(`select ttfb_ms from provider_call_outcome where decision_id = $1`, [done.data.decisionId]);
    expect(stored.rows[0].ttfb_ms).toBeCloseTo(done.data.ttfbMs, 6);
  });

  it.each([
    ["a 500", { type: "status", status: 500 }],
    ["a stream that dies before any output", { type: "stream_dies_after", chunks: 0 }],
  ] as const)("fails over before the first byte on %s", async (_name, fault) => {
    env.mocks.llm_openai.setFaults([fault]);
    const r = await post("LLM_CHAT", chat("hi", { stream: true }));
    const events = sseEvents(r.text);
    expect(events[0]!.event).toBe("start");
    expect(events[0]!.data.provider).not.toBe("llm_openai");
    expect(events[0]!.data.attempts[0]).toMatchObject({ provider: "llm_openai", errorClass: "transient" });
    expect(events.at(-1)!.event).toBe("done");
    expect(
      events
        .filter((e) => e.event === "delta")
        .map((e) => e.data.text)
        .join(""),
    ).toMatch(/^Hello from (anthropic|gemini)$/);
  });

  it("ends with an explicit error event when the stream dies after output began, without failing over", async () => {
    env.mocks.llm_openai.setFaults([{ type: "stream_dies_after", chunks: 2 }]);
    const r = await post("LLM_CHAT", chat("hi", { stream: true }));
    const events = sseEvents(r.text);
    expect(events.map((e) => e.event)).toEqual(["start", "delta", "delta", "error"]);
    expect(events[3]!.data).toMatchObject({ code: "stream_interrupted", provider: "llm_openai" });
    expect(env.mocks.llm_anthropic.requests.length + env.mocks.llm_gemini.requests.length).toBe(0);
    expect((await callOutcomes(events[3]!.data.decisionId))[0]).toMatchObject({ status: "failure", error_class: "network" });
  });

  it("streams Anthropic and Gemini in the same normalised events", async () => {
    for (const [provider, text] of [
      ["llm_anthropic", "Hello from anthropic"],
      ["llm_gemini", "Hello from gemini"],
    ] as const) {
      const events = sseEvents((await post("LLM_CHAT", chat("hi", { stream: true, attributes: { providers: provider } }))).text);
      expect(events[0]!.data.provider).toBe(provider);
      expect(
        events
          .filter((e) => e.event === "delta")
          .map((e) => e.data.text)
          .join(""),
      ).toBe(text);
      expect(events.at(-1)!.event).toBe("done");
    }
  });
});

describe("nothing eligible", () => {
  it("answers a friendly 503 with Retry-After under a degraded_message policy", async () => {
    const r = await post("LLM_CHAT", chat("hi", { attributes: { providers: "none_of_them" } }));
    expect(r.status).toBe(503);
    expect(r.json.error.code).toBe("capacity_exhausted");
    expect(r.json.error.message).toMatch(/please retry in \d+ s/);
    expect(r.headers.get("retry-after")).toMatch(/^\d+$/);
  });

  it("queues under a queue policy: 202 with position and a poll URL", async () => {
    const r = await post("SEND_SMS", { region: "EU", input: { to: "1", text: "t" }, attributes: { providers: "none_of_them" } });
    expect(r.status).toBe(202);
    expect(r.json).toMatchObject({ status: "queued", position: 1, pollUrl: `/api/v1/execute/jobs/${r.json.jobId}` });
    const poll = await fetch(`${env.server.url}${r.json.pollUrl}`).then((x) => x.json() as Promise<TJson>);
    expect(poll).toMatchObject({ status: "queued", position: 1 });
  });

  it("answers 503 with Retry-After instead of queueing when the request says queue: false", async () => {
    const r = await post("SEND_SMS", { region: "EU", input: { to: "1", text: "t" }, attributes: { providers: "none_of_them" }, queue: false });
    expect(r.status).toBe(503);
    expect(r.json.error.code).toBe("capacity_exhausted");
    expect(r.json.jobId).toBeUndefined();
    expect(r.headers.get("retry-after")).toMatch(/^\d+$/);
  });

  it("serves the cached answer where the operation allows it", async () => {
    await env.prisma.gatewayOperation.update({ where: { operationKey: "LLM_CHAT" }, data: { cacheTtlSeconds: 60 } });
    await env.reload();
    try {
      const first = await post("LLM_CHAT", chat("cache me"));
      expect(first.status).toBe(200);
      const r = await post("LLM_CHAT", chat("cache me", { attributes: { providers: "none_of_them" } }));
      expect(r.status).toBe(200);
      expect(r.headers.get("x-switchyard-cache")).toBe("hit");
      expect(r.json).toMatchObject({ provider: "llm_openai", result: { text: "Hello from openai" }, cached: { ageSeconds: 0 }, attempts: [] });
    } finally {
      await env.prisma.gatewayOperation.update({ where: { operationKey: "LLM_CHAT" }, data: { cacheTtlSeconds: null } });
      await env.reload();
    }
  });
});

describe("openapi", () => {
  it("documents the execute endpoint", async () => {
    const doc = (await fetch(`${env.server.url}/api/v1/openapi.json`).then((x) => x.json())) as TJson;
    expect(doc.paths["/api/v1/execute/{operation}"].post.requestBody).toBeDefined();
    expect(doc.paths["/api/v1/execute/jobs/{id}"].get).toBeDefined();
  });
});
