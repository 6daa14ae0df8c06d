import { z } from "zod";
import type { TExecuteBody } from "../openai-compat";

/**
 * Anthropic's Messages request, as far as Switchyard's LLM adapters can honour it. Fields that
 * would change what the caller gets back and that no adapter carries (tools, extended thinking,
 * MCP servers, non-text blocks) are refused by name rather than dropped; sampling hints the
 * adapters do not carry (top_p, top_k, stop_sequences) are accepted and ignored, as the OpenAI
 * surface does with its own.
 */
const ZTextBlock = z.looseObject({ type: z.string().max(64), text: z.string().optional() });

const ZMessage = z.looseObject({
  role: z.enum(["user", "assistant"]),
  content: z.union([z.string(), z.array(ZTextBlock).max(10_000)]),
});

export const ZMessagesRequest = z.looseObject({
  model: z.string().min(1).max(200),
  max_tokens: z.number().int().min(1).max(1_000_000),
  messages: z.array(ZMessage).min(1).max(100_000),
  system: z.union([z.string(), z.array(ZTextBlock).max(10_000)]).nullish(),
  temperature: z.number().min(0).max(1).nullish(),
  stream: z.boolean().nullish(),
  /** `user_id` as Anthropic defines it (ignored); other string entries become the routing attributes, as `metadata` does on the OpenAI surface. */
  metadata: z.record(z.string().min(1).max(64), z.string().max(1024).nullable()).nullish(),
});
export type TMessagesRequest = z.output<typeof ZMessagesRequest>;

const IGNORED = new Set(["top_p", "top_k", "stop_sequences", "service_tier"]);
const KNOWN = new Set(Object.keys(ZMessagesRequest.shape));

export type TFieldError = { field: string; message: string };

/** A present field Switchyard cannot honour (`thinking` only when enabled); the first is refused. */
export function unsupportedField(body: Record<string, unknown>): TFieldError | null {
  for (const [k, v] of Object.entries(body)) {
    if (KNOWN.has(k) || IGNORED.has(k) || v === null || v === undefined) continue;
    if (k === "thinking" && (v as { type?: unknown }).type === "disabled") continue;
    return { field: k, message: `${k}: not supported by Switchyard's Anthropic-compatible endpoint (text messages only)` };
  }
  return null;
}

/** Text blocks joined; any other block (tool_use, tool_result, image, document, thinking) refused naming it. */
function textOf(content: string | Array<z.output<typeof ZTextBlock>>, path: string): { ok: true; text: string } | { ok: false; error: TFieldError } {
  if (typeof content === "string") return { ok: true, text: content };
  let text = "";
  for (const [j, block] of content.entries()) {
    if (block.type !== "text" || typeof block.text !== "string") {
      return { ok: false, error: { field: `${path}.${j}`, message: `${path}.${j}: content blocks of type ${block.type} are not supported; only text` } };
    }
    text += block.text;
  }
  return { ok: true, text };
}

/** The execute request for a Messages call: `system` (string or text blocks) as execute's `system`. */
export function toExecuteBody(
  req: TMessagesRequest,
  region: string,
  requestId: string | undefined,
): { ok: true; body: TExecuteBody & { input: { system?: string } } } | { ok: false; error: TFieldError } {
  const messages: TExecuteBody["input"]["messages"] = [];
  for (const [i, m] of req.messages.entries()) {
    const t = textOf(m.content, `messages.${i}.content`);
    if (!t.ok) return t;
    messages.push({ role: m.role, content: t.text });
  }
  let system: string | undefined;
  if (req.system !== null && req.system !== undefined) {
    const t = textOf(req.system, "system");
    if (!t.ok) return t;
    system = t.text;
  }
  const attributes = Object.fromEntries(
    Object.entries(req.metadata ?? {}).filter((e): e is [string, string] => e[0] !== "user_id" && typeof e[1] === "string"),
  );
  const body: TExecuteBody & { input: { system?: string } } = {
    region,
    input: {
      messages,
      maxTokens: req.max_tokens,
      ...(system ? { system } : {}),
      ...(req.temperature != null ? { temperature: req.temperature } : {}),
    },
    stream: req.stream === true,
    queue: false,
  };
  if (requestId !== undefined) body.requestId = requestId;
  if (Object.keys(attributes).length > 0) body.attributes = attributes;
  return { ok: true, body };
}

/** Provider finish reasons in Anthropic's vocabulary. */
export function stopReason(raw: string | null | undefined): "end_turn" | "max_tokens" | "stop_sequence" | "refusal" {
  switch ((raw ?? "").toLowerCase()) {
    case "length":
    case "max_tokens":
      return "max_tokens";
    case "stop_sequence":
      return "stop_sequence";
    case "content_filter":
    case "safety":
    case "recitation":
    case "refusal":
      return "refusal";
    default:
      return "end_turn";
  }
}

type TUsageIn = { inputTokens?: number; outputTokens?: number } | null | undefined;

export function usageOf(u: TUsageIn): { input_tokens: number; output_tokens: number } {
  return { input_tokens: u?.inputTokens ?? 0, output_tokens: u?.outputTokens ?? 0 };
}

/** Execute's JSON answer (200) as an Anthropic `message`. */
export function toMessage(
  model: string,
  answer: {
    decisionId: string;
    provider: string;
    result: { text?: string; model?: string; finishReason?: string | null; usage?: TUsageIn };
    attempts?: unknown;
    costEstimate?: number | null;
  },
) {
  return {
    id: `msg_${answer.decisionId}`,
    type: "message" as const,
    role: "assistant" as const,
    model,
    content: [{ type: "text" as const, text: answer.result.text ?? "" }],
    stop_reason: stopReason(answer.result.finishReason),
    stop_sequence: null,
    usage: usageOf(answer.result.usage),
    switchyard: {
      decisionId: answer.decisionId,
      provider: answer.provider,
      providerModel: answer.result.model ?? null,
      attempts: answer.attempts ?? [],
      costEstimate: answer.costEstimate ?? null,
    },
  };
}

export type TAnthropicError = { type: "error"; error: { type: string; message: string } };

/** Anthropic's error `type` for a status. */
export function errorType(status: number): string {
  if (status === 401) return "authentication_error";
  if (status === 403) return "permission_error";
  if (status === 404) return "not_found_error";
  if (status === 413) return "request_too_large";
  if (status === 429) return "rate_limit_error";
  if (status === 529) return "overloaded_error";
  if (status >= 500) return "api_error";
  return "invalid_request_error";
}

export function anthropicError(status: number, message: string): TAnthropicError {
  return { type: "error", error: { type: errorType(status), message } };
}

type TSwitchyardError = { error?: { code?: unknown; message?: unknown; fields?: Array<{ path?: unknown }> }; providerBody?: unknown };

/**
 * A Switchyard error answer (execute's, auth's, the body reader's) in Anthropic's shape; the
 * message names Switchyard's code. A provider's refusal passed through by execute keeps the
 * provider's own type and message when its body has Anthropic's (or OpenAI's) error shape.
 */
export function toAnthropicError(status: number, body: unknown): TAnthropicError {
  const b = (body ?? {}) as TSwitchyardError;
  const code = typeof b.error?.code === "string" ? b.error.code : status >= 500 ? "internal" : "error";
  const message = typeof b.error?.message === "string" ? b.error.message : `Switchyard answered ${status}`;
  if (code === "provider_rejected") {
    const inner = (b.providerBody as { error?: { message?: unknown; type?: unknown } } | null)?.error;
    if (inner && typeof inner === "object" && typeof inner.message === "string") {
      const type = typeof inner.type === "string" && inner.type.endsWith("_error") ? inner.type : errorType(status);
      return { type: "error", error: { type, message: inner.message } };
    }
  }
  return anthropicError(status, `${message} (${code})`);
}
