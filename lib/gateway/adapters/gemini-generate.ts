import { malformedBody } from "../classify";
import type { TAdapter, TStreamDecoder, TUsage } from "../types";
import { expectObject, joinUrl } from "./json-body";

/**
 * Google Gemini generateContent (base URL up to /v1beta). The key goes in the x-goog-api-key
 * header rather than the query string, so it never appears in a URL that might be logged.
 */
export function geminiGenerateAdapter(cfg: { baseUrl: string; model: string }): TAdapter {
  const model = encodeURIComponent(cfg.model);
  const url = joinUrl(cfg.baseUrl, `/models/${model}:generateContent`);
  const streamUrl = joinUrl(cfg.baseUrl, `/models/${model}:streamGenerateContent?alt=sse`);
  return {
    kind: "gemini_generate",
    chat: true,
    build(req, credential, stream) {
      const chat = req.chat!;
      const body: Record<string, unknown> = {
        contents: chat.messages.map((m) => ({ role: m.role === "assistant" ? "model" : "user", parts: [{ text: m.content }] })),
        generationConfig: { maxOutputTokens: chat.maxTokens, ...(chat.temperature !== undefined ? { temperature: chat.temperature } : {}) },
      };
      if (chat.system) body.systemInstruction = { parts: [{ text: chat.system }] };
      const headers: Record<string, string> = { "content-type": "application/json", accept: stream ? "text/event-stream" : "application/json" };
      if (credential) headers["x-goog-api-key"] = credential;
      return { url: stream ? streamUrl : url, method: "POST", headers, body: JSON.stringify(body) };
    },
    parse(status, raw) {
      const body = expectObject(raw, "response", status);
      const candidates = body.candidates;
      if (!Array.isArray(candidates) || candidates.length === 0) throw malformedBody("candidates is missing or empty", status);
      const first = expectObject(candidates[0], "candidates[0]", status);
      return {
        status,
        text: textOf(first),
        model: typeof body.modelVersion === "string" ? body.modelVersion : cfg.model,
        finishReason: typeof first.finishReason === "string" ? first.finishReason : null,
        usage: usageOf(body.usageMetadata),
      };
    },
    streamDecoder(): TStreamDecoder {
      let finishReason: string | null = null;
      let usage: TUsage | undefined;
      let model: string | undefined;
      return {
        event(_name, data) {
          const chunk = JSON.parse(data) as { candidates?: Array<Record<string, unknown>>; usageMetadata?: unknown; modelVersion?: string };
          if (chunk.usageMetadata) usage = usageOf(chunk.usageMetadata);
          if (typeof chunk.modelVersion === "string") model = chunk.modelVersion;
          const c = chunk.candidates?.[0];
          if (!c) return null;
          if (typeof c.finishReason === "string") finishReason = c.finishReason;
          const text = textOf(c);
          return text !== "" ? { text } : null;
        },
        // Gemini's stream has no terminator event: the response simply ends after the last chunk.
        end: () => ({ finishReason, usage, model }),
      };
    },
  };
}

function textOf(candidate: Record<string, unknown>): string {
  const content = candidate.content as { parts?: Array<{ text?: unknown }> } | undefined;
  let text = "";
  for (const p of content?.parts ?? []) if (typeof p.text === "string") text += p.text;
  return text;
}

function usageOf(raw: unknown): TUsage | undefined {
  if (raw === null || typeof raw !== "object") return undefined;
  const u = raw as { promptTokenCount?: unknown; candidatesTokenCount?: unknown };
  return { inputTokens: Number(u.promptTokenCount) || 0, outputTokens: Number(u.candidatesTokenCount) || 0 };
}
