import { describe, expect, it } from "vitest";
import { parseModelAliases, splitModel } from "./models";
import { finishReason, toExecuteBody, toOpenAiError, unsupportedParam, ZChatCompletionRequest } from "./translate";

describe("model names", () => {
  it("splits OPERATION@REGION and parses SWITCHYARD_OPENAI_MODELS", () => {
    expect(splitModel("LLM_CHAT@EU")).toEqual({ operation: "LLM_CHAT", region: "EU" });
    expect(splitModel("LLM_CHAT")).toEqual({ operation: "LLM_CHAT", region: null });
    const aliases = parseModelAliases(" gpt-4o-mini = LLM_CHAT@EU, chat=LLM_CHAT ");
    expect([...aliases]).toEqual([
      ["gpt-4o-mini", { operation: "LLM_CHAT", region: "EU" }],
      ["chat", { operation: "LLM_CHAT", region: null }],
    ]);
    expect(() => parseModelAliases("gpt-4o")).toThrow(/SWITCHYARD_OPENAI_MODELS/);
    expect(() => parseModelAliases("a=X,a=Y")).toThrow(/twice/);
  });
});

describe("request translation", () => {
  it("maps messages, developer role, text parts, max tokens and metadata onto execute's body", () => {
    const req = ZChatCompletionRequest.parse({
      model: "LLM_CHAT",
      messages: [
        { role: "developer", content: "be brief" },
        {
          role: "user",
          content: [
            { type: "text", text: "a" },
            { type: "text", text: "b" },
          ],
        },
      ],
      max_completion_tokens: 10,
      max_tokens: 99,
      temperature: 0.5,
      metadata: { compliance: "gdpr" },
      user: "ignored",
    });
    expect(toExecuteBody(req, "EU", "rid-1")).toEqual({
      ok: true,
      body: {
        region: "EU",
        input: {
          messages: [
            { role: "system", content: "be brief" },
            { role: "user", content: "ab" },
          ],
          maxTokens: 10,
          temperature: 0.5,
        },
        stream: false,
        queue: false,
        requestId: "rid-1",
        attributes: { compliance: "gdpr" },
      },
    });
    const image = ZChatCompletionRequest.parse({ model: "m", messages: [{ role: "user", content: [{ type: "image_url", image_url: { url: "x" } }] }] });
    expect(toExecuteBody(image, "EU", undefined)).toMatchObject({ ok: false, error: { param: "messages.0.content.0" } });
  });

  it("refuses fields that change the answer and accepts harmless ones", () => {
    expect(unsupportedParam({ model: "m", messages: [], tools: [] })).toMatchObject({ param: "tools" });
    expect(unsupportedParam({ model: "m", messages: [], response_format: { type: "json_object" } })).toMatchObject({ param: "response_format" });
    expect(unsupportedParam({ model: "m", messages: [], response_format: { type: "text" }, user: "u", top_p: 1, tools: null })).toBeNull();
    expect(() => ZChatCompletionRequest.parse({ model: "m", messages: [{ role: "user", content: "x" }], n: 2 })).toThrow();
  });
});

describe("answer translation", () => {
  it("maps provider finish reasons onto OpenAI's", () => {
    expect(["end_turn", "STOP", "max_tokens", "MAX_TOKENS", "SAFETY", "length"].map(finishReason)).toEqual([
      "stop",
      "stop",
      "length",
      "length",
      "content_filter",
      "length",
    ]);
  });

  it("puts Switchyard errors in OpenAI's shape, keeping a provider's own OpenAI-shaped error", () => {
    expect(toOpenAiError(400, { error: { code: "invalid_request", message: "input.maxTokens: too big", field: "input.maxTokens" } })).toEqual({
      error: { message: "input.maxTokens: too big", type: "invalid_request_error", param: "max_tokens", code: "invalid_request" },
    });
    expect(toOpenAiError(422, { error: { code: "invalid", message: "x", fields: [{ path: "region", message: "unknown" }] } }).error.param).toBe("model");
    expect(toOpenAiError(429, { error: { code: "rate_limited", message: "slow down" } }).error.type).toBe("rate_limit_error");
    expect(toOpenAiError(500, null)).toEqual({ error: { message: "Switchyard answered 500", type: "server_error", param: null, code: "internal" } });
    expect(
      toOpenAiError(400, {
        error: { code: "provider_rejected", message: "m" },
        providerBody: { type: "error", error: { type: "invalid_request_error", message: "too long" } },
      }),
    ).toEqual({
      error: { message: "too long", type: "invalid_request_error", param: null, code: "provider_rejected" },
    });
  });
});
