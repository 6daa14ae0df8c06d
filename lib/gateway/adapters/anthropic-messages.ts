import { malformedBody } from "../classify";
import type { TAdapter, TStreamDecoder, TUsage } from "../types";
import { expectObject, joinUrl } from "./json-body";

const ANTHROPIC_VERSION = "2023-06-01";

/** Anthropic's Messages API (POST /v1/messages; base URL includes /v1). */
export function anthropicMessagesAdapter(cfg: { baseUrl: string; model: string }): TAdapter {
  const url = joinUrl(cfg.baseUrl, "/messages");
  return {
    kind: "anthropic_messages",
    chat: true,
    build(req, credential, stream) {
      const chat = req.chat!;
      const body: Record<string, unknown> = { model: cfg.model, max_tokens: chat.maxTokens, messages: chat.messages };
      if (chat.system) body.system = chat.system;
      if (chat.temperature !== undefined) body.temperature = chat.temperature;
      if (stream) body.stream = true;
      const headers: Record<string, string> = {
        "content-type": "application/json",
        accept: stream ? "text/event-stream" : "application/json",
        "anthropic-version": ANTHROPIC_VERSION,
      };
      if (credential) headers["x-api-key"] = credential;
      if (req.idempotencyKey) headers["idempotency-key"] = req.idempotencyKey;
      return { url, method: "POST", headers, body: JSON.stringify(body) };
    },
    parse(status, raw) {
      const body = expectObject(raw, "response", status);
      if (!Array.isArray(body.content)) throw malformedBody("content is not an array", status);
      let text = "";
      for (const block of body.content as unknown[]) {
        const b = expectObject(block, "content block", status);
        if (b.type === "text" && typeof b.text === "string") text += b.text;
      }
      return {
        status,
        text,
        model: typeof body.model === "string" ? body.model : cfg.model,
        finishReason: typeof body.stop_reason === "string" ? body.stop_reason : null,
        usage: usageOf(body.usage),
      };
    },
    streamDecoder(): TStreamDecoder {
      let finishReason: string | null = null;
      let inputTokens = 0;
      let outputTokens = 0;
      let model: string | undefined;
      return {
        event(name, data) {
          const ev = JSON.parse(data) as {
            type?: string;
            message?: { model?: string; usage?: { input_tokens?: number; output_tokens?: number } };
            delta?: { type?: string; text?: string; stop_reason?: string };
            usage?: { output_tokens?: number };
            error?: { message?: string };
          };
          const type = ev.type ?? name;
          if (type === "message_start") {
            model = ev.message?.model;
            inputTokens = ev.message?.usage?.input_tokens ?? 0;
            outputTokens = ev.message?.usage?.output_tokens ?? 0;
          } else if (type === "content_block_delta" && ev.delta?.type === "text_delta" && typeof ev.delta.text === "string") {
            return { text: ev.delta.text };
          } else if (type === "message_delta") {
            if (ev.delta?.stop_reason) finishReason = ev.delta.stop_reason;
            if (ev.usage?.output_tokens !== undefined) outputTokens = ev.usage.output_tokens;
          } else if (type === "message_stop") return "end";
          else if (type === "error") throw new Error(`provider stream error: ${ev.error?.message ?? "unknown"}`);
          return null;
        },
        end: () => ({ finishReason, usage: { inputTokens, outputTokens }, model }),
      };
    },
  };
}

function usageOf(raw: unknown): TUsage | undefined {
  if (raw === null || typeof raw !== "object") return undefined;
  const u = raw as { input_tokens?: unknown; output_tokens?: unknown };
  return { inputTokens: Number(u.input_tokens) || 0, outputTokens: Number(u.output_tokens) || 0 };
}
