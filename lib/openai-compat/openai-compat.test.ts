import OpenAI from "openai";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { createAuthenticator, setAuthenticator } from "../edge/authenticate";
import { createGatewayEnv, setLlmPolicy, TEST_SECRETS, type TGatewayEnv } from "../../test/support/gateway-fixtures";

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- response shapes are asserted field by field
type TJson = any;

let env: TGatewayEnv;
let client: OpenAI;
const API_KEY = "sy-test-key";

beforeAll(async () => {
  env = await createGatewayEnv({ apiKey: API_KEY });
  setAuthenticator(createAuthenticator({ apiKey: API_KEY, allowAnonymousWithoutKey: true }));
  // The official client, unchanged but for the base URL; retries off so each test sees one call.
  client = new OpenAI({ baseURL: `${env.server.url}/api/v1/openai`, apiKey: API_KEY, maxRetries: 0 });
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

const messages = [{ role: "user" as const, content: "Say hello" }];

async function callOutcomes(
  decisionId: string,
): Promise<Array<{ provider_key: string; status: string; error_class: string | null; http_status: number | null }>> {
  await env.server.gateway.flush();
  const r = await env.pool.query(
    `select provider_key, status, error_class::text, http_status from provider_call_outcome where decision_id = $1 order by retry_count`,
    [decisionId],
  );
  return r.rows;
}

/** The logged decision; a stream's row may commit just after its last event (execute does not hold the stream for it). */
async function decision(id: string): Promise<TJson> {
  const deadline = Date.now() + 10_000;
  for (;;) {
    const r = await fetch(`${env.server.url}/api/v1/decisions/${id}`, { headers: { authorization: `Bearer ${API_KEY}` } });
    if (r.status !== 404 || Date.now() > deadline) return r.json();
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

describe("OpenAI-compatible endpoint with the official openai client", () => {
  it("answers a chat completion through execute: text, usage, decision and provider headers, decision log", async () => {
    const { data, response } = await client.chat.completions.create({ model: "LLM_CHAT@EU", messages, max_tokens: 64 }).withResponse();
    expect(data.object).toBe("chat.completion");
    expect(data.model).toBe("LLM_CHAT@EU");
    expect(data.choices[0]!.message).toMatchObject({ role: "assistant", content: "Hello from openai" });
    expect(data.choices[0]!.finish_reason).toBe("stop");
    expect(data.usage).toEqual({ prompt_tokens: 12, completion_tokens: 5, total_tokens: 17 });
    const decisionId = response.headers.get("x-switchyard-decision-id")!;
    expect(decisionId).toMatch(/^[0-9a-f-]{36}$/);
    expect(data.id).toBe(`chatcmpl-${decisionId}`);
    expect(response.headers.get("x-switchyard-provider")).toBe("llm_openai");
    expect(response.headers.get("x-decision-durability")).toBe("committed");
    expect(env.mocks.llm_openai.requests[0]!.body).toMatchObject({ max_tokens: 64, messages: [{ role: "user", content: "Say hello" }] });
    const d = await decision(decisionId);
    expect(d).toMatchObject({ selected: "llm_openai", mode: "execute", region: "EU" });
    expect(await callOutcomes(decisionId)).toEqual([{ provider_key: "llm_openai", status: "success", error_class: null, http_status: 200 }]);
  });

  it("streams chat.completion.chunk events with usage and ends with data: [DONE]", async () => {
    const stream = await client.chat.completions.create({ model: "LLM_CHAT@EU", messages, stream: true, stream_options: { include_usage: true } });
    const chunks: OpenAI.Chat.Completions.ChatCompletionChunk[] = [];
    for await (const c of stream) chunks.push(c);
    expect(chunks.every((c) => c.object === "chat.completion.chunk" && c.model === "LLM_CHAT@EU")).toBe(true);
    expect(chunks.map((c) => c.choices[0]?.delta.content ?? "").join("")).toBe("Hello from openai");
    expect(chunks[0]!.choices[0]!.delta.role).toBe("assistant");
    expect(chunks.find((c) => c.choices[0]?.finish_reason)!.choices[0]!.finish_reason).toBe("stop");
    expect(chunks.at(-1)!.choices).toEqual([]);
    expect(chunks.at(-1)!.usage).toMatchObject({ prompt_tokens: 12, completion_tokens: 3 });

    // The raw stream, as other clients read it: the decision id header and the terminator.
    const raw = await fetch(`${env.server.url}/api/v1/openai/chat/completions`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ model: "LLM_CHAT@EU", messages, stream: true }),
    });
    const text = await raw.text();
    expect(raw.headers.get("content-type")).toMatch(/text\/event-stream/);
    expect(raw.headers.get("x-switchyard-provider")).toBe("llm_openai");
    expect(text.trimEnd().endsWith("data: [DONE]")).toBe(true);
    expect(text).not.toContain('"usage"');
    const decisionId = raw.headers.get("x-switchyard-decision-id")!;
    expect((await decision(decisionId)).mode).toBe("execute");
  });

  it("fails over while the selected provider is down, before the first byte (JSON and stream)", async () => {
    env.mocks.llm_openai.setAlways({ type: "status", status: 503 });
    const { data, response } = await client.chat.completions.create({ model: "LLM_CHAT@EU", messages }).withResponse();
    const provider = response.headers.get("x-switchyard-provider");
    expect(provider).not.toBe("llm_openai");
    expect(data.choices[0]!.message.content).toMatch(/^Hello from (anthropic|gemini)$/);
    expect((data as TJson).switchyard.attempts[0]).toMatchObject({ provider: "llm_openai", errorClass: "transient" });
    const outcomes = await callOutcomes(response.headers.get("x-switchyard-decision-id")!);
    expect(outcomes.map((o) => [o.provider_key, o.status, o.error_class])).toEqual([
      ["llm_openai", "failure", "http_5xx"],
      [provider, "success", null],
    ]);

    env.mocks.llm_openai.setAlways({ type: "reset" });
    const { data: stream, response: streamed } = await client.chat.completions.create({ model: "LLM_CHAT@EU", messages, stream: true }).withResponse();
    let text = "";
    for await (const c of stream) text += c.choices[0]?.delta.content ?? "";
    expect(streamed.headers.get("x-switchyard-provider")).not.toBe("llm_openai");
    expect(text).toMatch(/^Hello from (anthropic|gemini)$/);
    expect(env.mocks.llm_openai.requests.length).toBe(2);
  });

  it("passes a provider's 4xx through in OpenAI's error shape with its status, without failing over", async () => {
    env.mocks.llm_openai.setFaults([
      {
        type: "status",
        status: 400,
        body: { error: { message: "messages too long", type: "invalid_request_error", param: "messages", code: "context_length_exceeded" } },
      },
    ]);
    const err = await client.chat.completions.create({ model: "LLM_CHAT@EU", messages }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(OpenAI.BadRequestError);
    const e = err as InstanceType<typeof OpenAI.BadRequestError>;
    expect(e.status).toBe(400);
    expect(e.error).toEqual({ message: "messages too long", type: "invalid_request_error", param: "messages", code: "context_length_exceeded" });
    expect(e.headers.get("x-switchyard-provider")).toBe("llm_openai");
    expect(e.headers.get("x-switchyard-decision-id")).toMatch(/^[0-9a-f-]{36}$/);
    expect(env.mocks.llm_anthropic.requests.length + env.mocks.llm_gemini.requests.length).toBe(0);
    // A provider body without OpenAI's shape still comes back in it.
    env.mocks.llm_openai.setFaults([{ type: "status", status: 404, body: "no such deployment" }]);
    const notFound = (await client.chat.completions.create({ model: "LLM_CHAT@EU", messages }).catch((x: unknown) => x)) as InstanceType<
      typeof OpenAI.NotFoundError
    >;
    expect(notFound).toBeInstanceOf(OpenAI.NotFoundError);
    expect(notFound.error).toMatchObject({ type: "invalid_request_error", code: "provider_rejected", param: null });
    expect((notFound.error as TJson).message).toMatch(/llm_openai refused the request/);
  });

  it("answers 503 in OpenAI's shape with Retry-After when every provider fails", async () => {
    for (const m of [env.mocks.llm_openai, env.mocks.llm_anthropic, env.mocks.llm_gemini]) m.setFaults([{ type: "status", status: 503 }]);
    const err = (await client.chat.completions.create({ model: "LLM_CHAT@EU", messages }).catch((e: unknown) => e)) as InstanceType<
      typeof OpenAI.InternalServerError
    >;
    expect(err).toBeInstanceOf(OpenAI.InternalServerError);
    expect(err.status).toBe(503);
    expect(err.error).toMatchObject({ type: "server_error", code: "all_attempts_failed" });
    expect(err.headers.get("retry-after")).toBe("1");
  });

  it("never queues: where the fallback policy would queue, answers 503 capacity_exhausted with Retry-After", async () => {
    // The fixture's own change (breakers that never trip) is kept: setLlmPolicy replaces the document.
    const fixture = { circuit_breaker: { consecutive_failures: 1000, min_calls: 1000 } } as const;
    await setLlmPolicy(env.prisma, { ...fixture, fallback_policy: "use_secondary_then_queue" });
    await env.server.dataPlane.reloadConfig();
    try {
      // Each call is what one retry of the official client sends; before, each one queued a job that ran later too.
      for (let i = 0; i < 3; i++) {
        const err = (await client.chat.completions
          .create({ model: "LLM_CHAT@EU", messages, metadata: { providers: "none_of_them" } })
          .catch((e: unknown) => e)) as InstanceType<typeof OpenAI.InternalServerError>;
        expect(err).toBeInstanceOf(OpenAI.InternalServerError);
        expect(err.status).toBe(503);
        expect(err.error).toMatchObject({ type: "server_error", code: "capacity_exhausted" });
        expect(err.headers.get("retry-after")).toMatch(/^\d+$/);
      }
    } finally {
      await setLlmPolicy(env.prisma, fixture);
      await env.server.dataPlane.reloadConfig();
    }
  });

  it("lists LLM operations and their regions as models, and refuses an unknown one with 404 model_not_found", async () => {
    const ids: string[] = [];
    for await (const m of client.models.list()) ids.push(m.id);
    expect(ids).toContain("LLM_CHAT");
    expect(ids).toContain("LLM_CHAT@EU");
    expect(ids.some((id) => id.startsWith("SEND_SMS"))).toBe(false);
    expect((await client.models.retrieve("LLM_CHAT@EU")).owned_by).toBe("switchyard");
    const err = (await client.chat.completions.create({ model: "gpt-5", messages }).catch((e: unknown) => e)) as InstanceType<typeof OpenAI.NotFoundError>;
    expect(err).toBeInstanceOf(OpenAI.NotFoundError);
    expect(err.error).toMatchObject({ type: "invalid_request_error", code: "model_not_found", param: "model" });
    expect(Object.values(env.mocks).every((m) => m.requests.length === 0)).toBe(true);
  });

  it("takes the region from x-switchyard-region and metadata as routing attributes", async () => {
    const { response } = await client.chat.completions
      .create({ model: "LLM_CHAT", messages, metadata: { providers: "llm_gemini" } }, { headers: { "x-switchyard-region": "EU" } })
      .withResponse();
    expect(response.headers.get("x-switchyard-provider")).toBe("llm_gemini");
    const d = await decision(response.headers.get("x-switchyard-decision-id")!);
    expect(d.region).toBe("EU");
  });

  it("refuses parameters it cannot honour, naming them", async () => {
    const err = (await client.chat.completions
      .create({ model: "LLM_CHAT@EU", messages, tools: [{ type: "function", function: { name: "f", parameters: {} } }] })
      .catch((e: unknown) => e)) as InstanceType<typeof OpenAI.BadRequestError>;
    expect(err).toBeInstanceOf(OpenAI.BadRequestError);
    expect(err.error).toMatchObject({ param: "tools", code: "unsupported_parameter", type: "invalid_request_error" });
    const bad = (await client.chat.completions.create({ model: "LLM_CHAT@EU", messages: [] }).catch((e: unknown) => e)) as InstanceType<
      typeof OpenAI.BadRequestError
    >;
    expect(bad.error).toMatchObject({ param: "messages", type: "invalid_request_error" });
  });

  it("executes once per Idempotency-Key and replays the answer", async () => {
    const key = `oa-idem-${Date.now()}`;
    const a = await client.chat.completions.create({ model: "LLM_CHAT@EU", messages }, { headers: { "Idempotency-Key": key } }).withResponse();
    const b = await client.chat.completions.create({ model: "LLM_CHAT@EU", messages }, { headers: { "Idempotency-Key": key } }).withResponse();
    expect(b.data.id).toBe(a.data.id);
    expect(b.response.headers.get("idempotent-replayed")).toBe("true");
    expect(env.mocks.llm_openai.requests).toHaveLength(1);
    const other = (await client.chat.completions
      .create({ model: "LLM_CHAT@EU", messages: [{ role: "user", content: "something else" }] }, { headers: { "Idempotency-Key": key } })
      .catch((e: unknown) => e)) as InstanceType<typeof OpenAI.UnprocessableEntityError>;
    expect(other.status).toBe(422);
    expect(other.error).toMatchObject({ code: "idempotency_key_reused", type: "invalid_request_error" });
  });

  it("authenticates with the data plane's bearer key and answers 401 in OpenAI's shape", async () => {
    setAuthenticator(createAuthenticator({ apiKey: API_KEY, allowAnonymousWithoutKey: false }));
    const anonymous = new OpenAI({ baseURL: `${env.server.url}/api/v1/openai`, apiKey: "not-the-key", maxRetries: 0 });
    try {
      const wrong = (await anonymous.chat.completions.create({ model: "LLM_CHAT@EU", messages }).catch((e: unknown) => e)) as InstanceType<
        typeof OpenAI.AuthenticationError
      >;
      expect(wrong).toBeInstanceOf(OpenAI.AuthenticationError);
      expect(wrong.error).toMatchObject({ type: "authentication_error", code: "unauthenticated" });
      // An unknown model from an unauthenticated caller is a 401 too: nothing is learnt about models.
      const probe = (await anonymous.chat.completions.create({ model: "nope", messages }).catch((e: unknown) => e)) as InstanceType<typeof OpenAI.APIError>;
      expect(probe.status).toBe(401);
      expect((await anonymous.models.list().catch((e: unknown) => e)) as InstanceType<typeof OpenAI.APIError>).toMatchObject({ status: 401 });
      const ok = await client.chat.completions.create({ model: "LLM_CHAT@EU", messages });
      expect(ok.choices[0]!.message.content).toBe("Hello from openai");
    } finally {
      setAuthenticator(createAuthenticator({ apiKey: API_KEY, allowAnonymousWithoutKey: true }));
    }
  });

  it("never returns a provider credential", async () => {
    env.mocks.llm_openai.setFaults([
      {
        type: "status",
        status: 401,
        body: { error: { message: `Incorrect API key provided: ${TEST_SECRETS.OPENAI_API_KEY}`, type: "invalid_request_error" } },
      },
    ]);
    const err = (await client.chat.completions.create({ model: "LLM_CHAT@EU", messages }).catch((e: unknown) => e)) as InstanceType<typeof OpenAI.APIError>;
    expect(err.status).toBe(401);
    expect(JSON.stringify(err.error)).toContain("[redacted]");
    expect(JSON.stringify(err.error)).not.toContain(TEST_SECRETS.OPENAI_API_KEY);
  });
});
