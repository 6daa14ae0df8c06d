import OpenAI from "openai";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { createAuthenticator, setAuthenticator } from "../edge/authenticate";
import { createGatewayEnv, type TGatewayEnv } from "../../test/support/gateway-fixtures";

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- response shapes are asserted field by field
type TJson = any;

let env: TGatewayEnv;
let client: OpenAI;
const API_KEY = "sy-responses-test-key";

beforeAll(async () => {
  env = await createGatewayEnv({ apiKey: API_KEY });
  setAuthenticator(createAuthenticator({ apiKey: API_KEY, allowAnonymousWithoutKey: false }));
  client = new OpenAI({ baseURL: `${env.server.url}/api/v1/openai`, apiKey: API_KEY, maxRetries: 0 });
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

describe("Responses API with the official openai client", () => {
  it("answers responses.create with a string input: output_text, usage, instructions as the system prompt", async () => {
    const { data, response } = await client.responses
      .create({ model: "LLM_CHAT@EU", input: "Say hello", instructions: "You are terse.", max_output_tokens: 64 })
      .withResponse();
    expect(data.object).toBe("response");
    expect(data.status).toBe("completed");
    expect(data.model).toBe("LLM_CHAT@EU");
    expect(data.output_text).toBe("Hello from openai");
    expect(data.output[0]).toMatchObject({
      type: "message",
      role: "assistant",
      status: "completed",
      content: [{ type: "output_text", text: "Hello from openai" }],
    });
    expect(data.usage).toMatchObject({ input_tokens: 12, output_tokens: 5, total_tokens: 17 });
    const decisionId = response.headers.get("x-switchyard-decision-id")!;
    expect(data.id).toBe(`resp_${decisionId}`);
    expect(response.headers.get("x-switchyard-provider")).toBe("llm_openai");
    expect(env.mocks.llm_openai.requests[0]!.body).toMatchObject({
      max_tokens: 64,
      messages: [
        { role: "system", content: "You are terse." },
        { role: "user", content: "Say hello" },
      ],
    });
  });

  it("takes message items with text parts, developer as system", async () => {
    const data = await client.responses.create({
      model: "LLM_CHAT@EU",
      input: [
        { role: "developer", content: "Answer in English." },
        {
          type: "message",
          role: "user",
          content: [
            { type: "input_text", text: "Say " },
            { type: "input_text", text: "hi" },
          ],
        },
        { role: "assistant", content: "Hi." },
        { role: "user", content: "Again" },
      ],
    });
    expect(data.output_text).toBe("Hello from openai");
    expect((env.mocks.llm_openai.requests[0]!.body as TJson).messages).toEqual([
      { role: "system", content: "Answer in English." },
      { role: "user", content: "Say hi" },
      { role: "assistant", content: "Hi." },
      { role: "user", content: "Again" },
    ]);
  });

  it("streams the Responses events with sequence numbers, and the stream helper assembles the final response", async () => {
    const stream = await client.responses.create({ model: "LLM_CHAT@EU", input: "Say hello", stream: true });
    const events: Array<{ type: string; sequence_number: number }> = [];
    let text = "";
    for await (const ev of stream) {
      events.push(ev);
      if (ev.type === "response.output_text.delta") text += ev.delta;
    }
    expect(text).toBe("Hello from openai");
    const types = events.map((e) => e.type);
    expect(types.slice(0, 4)).toEqual(["response.created", "response.in_progress", "response.output_item.added", "response.content_part.added"]);
    expect(types.slice(-4)).toEqual(["response.output_text.done", "response.content_part.done", "response.output_item.done", "response.completed"]);
    expect(events.map((e) => e.sequence_number)).toEqual(events.map((_, i) => i));
    const completed = events.at(-1) as TJson;
    expect(completed.response).toMatchObject({ status: "completed", usage: { input_tokens: 12, output_tokens: 3 } });

    const final = await client.responses.stream({ model: "LLM_CHAT@EU", input: "Say hello" }).finalResponse();
    expect(final.output_text).toBe("Hello from openai");
    expect(final.status).toBe("completed");
  });

  it("refuses what it does not support, naming the parameter, calling no provider", async () => {
    const cases: Array<[Record<string, unknown>, string]> = [
      [{ tools: [{ type: "function", name: "f", parameters: {}, strict: false }] }, "tools"],
      [{ previous_response_id: "resp_123" }, "previous_response_id"],
      [{ reasoning: { effort: "low" } }, "reasoning"],
      [{ text: { format: { type: "json_object" } } }, "text"],
      [{ input: [{ type: "function_call_output", call_id: "c1", output: "42" }] }, "input.0"],
      [{ input: [{ role: "user", content: [{ type: "input_image", image_url: "https://example.invalid/x.png" }] }] }, "input.0.content.0"],
    ];
    for (const [extra, param] of cases) {
      const err = (await client.responses
        .create({ model: "LLM_CHAT@EU", input: "Hi", ...extra } as OpenAI.Responses.ResponseCreateParamsNonStreaming)
        .catch((e: unknown) => e)) as InstanceType<typeof OpenAI.BadRequestError>;
      expect(err, param).toBeInstanceOf(OpenAI.BadRequestError);
      expect(err.error).toMatchObject({ param, type: "invalid_request_error", code: "unsupported_parameter" });
    }
    const unknownModel = (await client.responses.create({ model: "gpt-5", input: "Hi" }).catch((e: unknown) => e)) as InstanceType<typeof OpenAI.NotFoundError>;
    expect(unknownModel).toBeInstanceOf(OpenAI.NotFoundError);
    expect(unknownModel.error).toMatchObject({ code: "model_not_found", param: "model" });
    expect(Object.values(env.mocks).every((m) => m.requests.length === 0)).toBe(true);
  });

  it("answers 401 in OpenAI's shape to a wrong key", async () => {
    const wrong = new OpenAI({ baseURL: `${env.server.url}/api/v1/openai`, apiKey: "not-the-key", maxRetries: 0 });
    const err = (await wrong.responses.create({ model: "LLM_CHAT@EU", input: "Hi" }).catch((e: unknown) => e)) as InstanceType<
      typeof OpenAI.AuthenticationError
    >;
    expect(err).toBeInstanceOf(OpenAI.AuthenticationError);
    expect(err.error).toMatchObject({ type: "authentication_error" });
  });
});
