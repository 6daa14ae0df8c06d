import Anthropic from "@anthropic-ai/sdk";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { createAuthenticator, setAuthenticator } from "../edge/authenticate";
import { createGatewayEnv, type TGatewayEnv } from "../../test/support/gateway-fixtures";

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- response shapes are asserted field by field
type TJson = any;

let env: TGatewayEnv;
let client: Anthropic;
const API_KEY = "sy-anthropic-test-key";

beforeAll(async () => {
  env = await createGatewayEnv({ apiKey: API_KEY });
  setAuthenticator(createAuthenticator({ apiKey: API_KEY, allowAnonymousWithoutKey: false }));
  // The official client, unchanged but for the base URL; its key goes as x-api-key. Retries off so each test sees one call.
  client = new Anthropic({ baseURL: `${env.server.url}/api/v1/anthropic`, apiKey: API_KEY, maxRetries: 0 });
}, 60_000);
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

describe("Anthropic-compatible endpoint with the official @anthropic-ai/sdk client", () => {
  it("answers messages.create through execute: text, usage, stop reason, system prompt, decision headers", async () => {
    const { data, response } = await client.messages.create({ model: "LLM_CHAT@EU", max_tokens: 64, system: "You are terse.", messages }).withResponse();
    expect(data.type).toBe("message");
    expect(data.role).toBe("assistant");
    expect(data.model).toBe("LLM_CHAT@EU");
    expect(data.content).toEqual([{ type: "text", text: "Hello from openai" }]);
    expect(data.stop_reason).toBe("end_turn");
    expect(data.usage).toMatchObject({ input_tokens: 12, output_tokens: 5 });
    const decisionId = response.headers.get("x-switchyard-decision-id")!;
    expect(data.id).toBe(`msg_${decisionId}`);
    expect(response.headers.get("x-switchyard-provider")).toBe("llm_openai");
    expect(env.mocks.llm_openai.requests[0]!.body).toMatchObject({
      max_tokens: 64,
      messages: [
        { role: "system", content: "You are terse." },
        { role: "user", content: "Say hello" },
      ],
    });

    // System as text blocks, content as text blocks: joined, and Anthropic's own provider gets `system` apart.
    const blocks = await client.messages.create(
      {
        model: "LLM_CHAT@EU",
        max_tokens: 32,
        system: [
          { type: "text", text: "Be " },
          { type: "text", text: "brief." },
        ],
        messages: [
          {
            role: "user",
            content: [
              { type: "text", text: "Say " },
              { type: "text", text: "hi" },
            ],
          },
        ],
        metadata: { user_id: "u-1" },
      },
      { headers: { "x-switchyard-request-id": `anthropic-blocks-${Date.now()}` } },
    );
    expect(blocks.content[0]).toMatchObject({ type: "text" });
    expect((env.mocks.llm_openai.requests[1]!.body as TJson).messages).toEqual([
      { role: "system", content: "Be brief." },
      { role: "user", content: "Say hi" },
    ]);
  });

  it("streams Anthropic's events, ping included, and the stream helper assembles the final message", async () => {
    const res = await fetch(`${env.server.url}/api/v1/anthropic/v1/messages`, {
      method: "POST",
      headers: { "content-type": "application/json", "x-api-key": API_KEY, "anthropic-version": "2023-06-01" },
      body: JSON.stringify({ model: "LLM_CHAT@EU", max_tokens: 64, messages, stream: true }),
    });
    expect(res.headers.get("content-type")).toMatch(/text\/event-stream/);
    const names = [...(await res.text()).matchAll(/^event: (\w+)$/gm)].map((m) => m[1]);
    expect(names[0]).toBe("message_start");
    expect(names.slice(1, 3)).toEqual(["content_block_start", "ping"]);
    expect(names.filter((n) => n === "content_block_delta").length).toBeGreaterThan(1);
    expect(names.slice(-3)).toEqual(["content_block_stop", "message_delta", "message_stop"]);

    const stream = await client.messages.create({ model: "LLM_CHAT@EU", max_tokens: 64, messages, stream: true });
    const types: string[] = [];
    let text = "";
    for await (const ev of stream) {
      types.push(ev.type);
      if (ev.type === "content_block_delta" && ev.delta.type === "text_delta") text += ev.delta.text;
    }
    expect(text).toBe("Hello from openai");
    expect(types.at(-1)).toBe("message_stop");

    const final = await client.messages.stream({ model: "LLM_CHAT@EU", max_tokens: 64, messages }).finalMessage();
    expect(final.content).toEqual([{ type: "text", text: "Hello from openai" }]);
    expect(final.stop_reason).toBe("end_turn");
    expect(final.usage).toMatchObject({ input_tokens: 12, output_tokens: 3 });
  });

  it("refuses tools and tool blocks with 400 invalid_request_error naming the field, calling no provider", async () => {
    const tools = (await client.messages
      .create({ model: "LLM_CHAT@EU", max_tokens: 16, messages, tools: [{ name: "f", input_schema: { type: "object" } }] })
      .catch((e: unknown) => e)) as InstanceType<typeof Anthropic.BadRequestError>;
    expect(tools).toBeInstanceOf(Anthropic.BadRequestError);
    expect(tools.error).toMatchObject({ type: "error", error: { type: "invalid_request_error" } });
    expect((tools.error as TJson).error.message).toMatch(/^tools: not supported/);

    const block = (await client.messages
      .create({
        model: "LLM_CHAT@EU",
        max_tokens: 16,
        messages: [
          { role: "user", content: "What is the weather?" },
          { role: "assistant", content: [{ type: "tool_use", id: "t1", name: "weather", input: {} }] },
        ],
      })
      .catch((e: unknown) => e)) as InstanceType<typeof Anthropic.BadRequestError>;
    expect(block.status).toBe(400);
    expect((block.error as TJson).error.message).toMatch(/^messages\.1\.content\.0: content blocks of type tool_use are not supported/);
    expect(Object.values(env.mocks).every((m) => m.requests.length === 0)).toBe(true);
  });

  it("answers errors in Anthropic's shape: unknown model 404, bad body 400", async () => {
    const missing = (await client.messages.create({ model: "claude-nope", max_tokens: 16, messages }).catch((e: unknown) => e)) as InstanceType<
      typeof Anthropic.NotFoundError
    >;
    expect(missing).toBeInstanceOf(Anthropic.NotFoundError);
    expect(missing.error).toMatchObject({ type: "error", error: { type: "not_found_error" } });
    expect((missing.error as TJson).error.message).toMatch(/claude-nope/);
    const res = await fetch(`${env.server.url}/api/v1/anthropic/v1/messages`, {
      method: "POST",
      headers: { "content-type": "application/json", "x-api-key": API_KEY },
      body: JSON.stringify({ model: "LLM_CHAT@EU", messages }),
    });
    expect(res.status).toBe(400);
    expect(await res.json()).toMatchObject({ type: "error", error: { type: "invalid_request_error", message: expect.stringMatching(/^max_tokens: /) } });
  });

  it("authenticates with x-api-key or Authorization: Bearer, and answers 401 in Anthropic's shape", async () => {
    const bearer = new Anthropic({ baseURL: `${env.server.url}/api/v1/anthropic`, apiKey: null, authToken: API_KEY, maxRetries: 0 });
    expect((await bearer.messages.create({ model: "LLM_CHAT@EU", max_tokens: 16, messages })).content[0]).toMatchObject({ text: "Hello from openai" });
    const wrong = new Anthropic({ baseURL: `${env.server.url}/api/v1/anthropic`, apiKey: "not-the-key", maxRetries: 0 });
    const err = (await wrong.messages.create({ model: "LLM_CHAT@EU", max_tokens: 16, messages }).catch((e: unknown) => e)) as InstanceType<
      typeof Anthropic.AuthenticationError
    >;
    expect(err).toBeInstanceOf(Anthropic.AuthenticationError);
    expect(err.error).toMatchObject({ type: "error", error: { type: "authentication_error" } });
    // An unknown model from an unauthenticated caller is a 401 too: nothing is learnt about models.
    const probe = (await wrong.messages.create({ model: "nope", max_tokens: 16, messages }).catch((e: unknown) => e)) as InstanceType<
      typeof Anthropic.APIError
    >;
    expect(probe.status).toBe(401);
  });

  it("passes a provider's 4xx through with its status and its own error type", async () => {
    env.mocks.llm_openai.setFaults([
      { type: "status", status: 400, body: { error: { message: "prompt is too long", type: "invalid_request_error", param: "messages" } } },
    ]);
    const err = (await client.messages.create({ model: "LLM_CHAT@EU", max_tokens: 16, messages }).catch((e: unknown) => e)) as InstanceType<
      typeof Anthropic.BadRequestError
    >;
    expect(err).toBeInstanceOf(Anthropic.BadRequestError);
    expect(err.error).toEqual({ type: "error", error: { type: "invalid_request_error", message: "prompt is too long" } });
    expect(env.mocks.llm_anthropic.requests.length + env.mocks.llm_gemini.requests.length).toBe(0);
  });
});
