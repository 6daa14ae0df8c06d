import { malformedBody } from "../classify";
import type { TAdapter, TGatewayRequest, TStreamDecoder, TUsage } from "../types";
import { expectObject, joinUrl } from "./json-body";

/** OpenAI-compatible chat completions (OpenAI, Azure-style proxies, vLLM, Ollama, LiteLLM, Groq…). */
export function openAiChatAdapter(cfg: { baseUrl: string; model: string }): TAdapter {
  const url = joinUrl(cfg.baseUrl, "/chat/completions");
  return {
    kind: "openai_chat",
    chat: true,
    build(req: TGatewayRequest, credential, stream) {
      const chat = req.chat!;
      const messages = chat.system ? [{ role: "system", content: chat.system }, ...chat.messages] : chat.messages;
      const body: Record<string, unknown> = { model: cfg.model, messages, max_tokens: chat.maxTokens };
      if (chat.temperature !== undefined) body.temperature = chat.temperature;
      if (stream) {
        body.stream = true;
        body.stream_options = { include_usage: true };
      }
      const headers: Record<string, string> = { "content-type": "application/json", accept: stream ? "text/event-stream" : "application/json" };
      if (credential) headers.authorization = `Bearer ${credential}`;
      if (req.idempotencyKey) headers["idempotency-key"] = req.idempotencyKey;
      return { url, method: "POST", headers, body: JSON.stringify(body) };
    },
    parse(status, raw) {
      const body = expectObject(raw, "response", status);
      const choices = body.choices;
      if (!Array.isArray(choices) || choices.length === 0) throw malformedBody("choices is missing or empty", status);
      const first = expectObject(choices[0], "choices[0]", status);
      const message = expectObject(first.message, "choices[0].message", status);
      if (typeof message.content !== "string" && message.content !== null) throw malformedBody("choices[0].message.content is not a string", status);
      return {
        status,
        text: (message.content as string | null) ?? "",
        model: typeof body.model === "string" ? body.model : cfg.model,
        finishReason: typeof first.finish_reason === "string" ? first.finish_reason : null,
        usage: usageOf(body.usage),
      };
    },
    streamDecoder(): TStreamDecoder {
      let finishReason: string | null = null;
      let usage: TUsage | undefined;
      let model: string | undefined;
      return {
        event(_name, data) {
          if (data.trim() === "[DONE]") return "end";
          const chunk = JSON.parse(data) as {
            model?: string;
            choices?: Array<{ delta?: { content?: string | null }; finish_reason?: string | null }>;
            usage?: unknown;
          };
          if (typeof chunk.model === "string") model = chunk.model;
          if (chunk.usage) usage = usageOf(chunk.usage);
          const choice = chunk.choices?.[0];
          if (choice?.finish_reason) finishReason = choice.finish_reason;
          const text = choice?.delta?.content;
          return typeof text === "string" && text !== "" ? { text } : null;
        },
        end: () => ({ finishReason, usage, model }),
      };
    },
  };
}

function usageOf(raw: unknown): TUsage | undefined {
  if (raw === null || typeof raw !== "object") return undefined;
  const u = raw as { prompt_tokens?: unknown; completion_tokens?: unknown };
  return { inputTokens: Number(u.prompt_tokens) || 0, outputTokens: Number(u.completion_tokens) || 0 };
}
