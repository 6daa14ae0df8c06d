import { z } from "zod";

/**
 * OpenAI's chat-completions request, as far as Switchyard's LLM adapters can honour it. Fields
 * that would change what the caller gets back and that no adapter carries (tools, n > 1, JSON
 * mode, logprobs, audio) are refused by name rather than dropped; sampling hints the adapters do
 * not carry (top_p, stop, seed, penalties) and bookkeeping fields (user, store) are accepted and
 * ignored, as OpenAI-compatible servers commonly do.
 */
const ZContentPart = z.looseObject({ type: z.string(), text: z.string().optional() });

const ZMessage = z.looseObject({
  role: z.enum(["system", "developer", "user", "assistant"]),
  content: z.union([z.string(), z.array(ZContentPart), z.null()]),
  name: z.string().optional(),
});

export const ZChatCompletionRequest = z.looseObject({
  model: z.string().min(1).max(200),
  messages: z.array(ZMessage).min(1),
  max_tokens: z.number().int().min(1).max(1_000_000).nullish(),
  max_completion_tokens: z.number().int().min(1).max(1_000_000).nullish(),
  temperature: z.number().min(0).max(2).nullish(),
  stream: z.boolean().nullish(),
  stream_options: z.looseObject({ include_usage: z.boolean().optional() }).nullish(),
  n: z.number().int().min(1).max(1).nullish(),
  /** Routing attributes (`compliance`, `providers`, …) as decide takes them. */
  metadata: z.record(z.string().min(1).max(64), z.string().max(1024)).nullish(),
});
export type TChatCompletionRequest = z.output<typeof ZChatCompletionRequest>;

/** Accepted and not used: no adapter carries them and they do not change the answer's shape. */
const IGNORED = new Set([
  "user",
  "store",
  "top_p",
  "stop",
  "seed",
  "frequency_penalty",
  "presence_penalty",
  "logit_bias",
  "service_tier",
  "parallel_tool_calls",
  "reasoning_effort",
  "safety_identifier",
  "prompt_cache_key",
]);
const KNOWN = new Set(Object.keys(ZChatCompletionRequest.shape));

export type TParamError = { param: string; message: string };

/** Fields present that Switchyard cannot honour; the first is refused. */
export function unsupportedParam(body: Record<string, unknown>): TParamError | null {
  for (const [k, v] of Object.entries(body)) {
    if (KNOWN.has(k) || IGNORED.has(k) || v === null || v === undefined) continue;
    if (k === "response_format" && (v as { type?: unknown }).type === "text") continue;
    if (k === "logprobs" && v === false) continue;
    return { param: k, message: `${k} is not supported by Switchyard's OpenAI-compatible endpoint` };
  }
  return null;
}

export type TExecuteBody = {
  region: string;
  input: { messages: Array<{ role: "system" | "user" | "assistant"; content: string }>; maxTokens?: number; temperature?: number };
  stream: boolean;
  /** Always false: OpenAI clients retry a 503 rather than poll, so a queued job would run twice. */
  queue: false;
  requestId?: string;
  attributes?: Record<string, string>;
};

/** The execute request for a chat completion; text content parts are joined, others refused. */
export function toExecuteBody(
  req: TChatCompletionRequest,
  region: string,
  requestId: string | undefined,
): { ok: true; body: TExecuteBody } | { ok: false; error: TParamError } {
  const messages: TExecuteBody["input"]["messages"] = [];
  for (const [i, m] of req.messages.entries()) {
    let content: string;
    if (typeof m.content === "string") content = m.content;
    else if (m.content === null) content = "";
    else {
      const other = m.content.findIndex((p) => p.type !== "text" || typeof p.text !== "string");
      if (other !== -1)
        return {
          ok: false,
          error: { param: `messages.${i}.content.${other}`, message: `content parts of type ${m.content[other]!.type} are not supported; only text` },
        };
      content = m.content.map((p) => p.text!).join("");
    }
    messages.push({ role: m.role === "developer" ? "system" : m.role, content });
  }
  const maxTokens = req.max_completion_tokens ?? req.max_tokens ?? undefined;
  const body: TExecuteBody = {
    region,
    input: { messages, ...(maxTokens !== undefined ? { maxTokens } : {}), ...(req.temperature != null ? { temperature: req.temperature } : {}) },
    stream: req.stream === true,
    queue: false,
  };
  if (requestId !== undefined) body.requestId = requestId;
  if (req.metadata && Object.keys(req.metadata).length > 0) body.attributes = req.metadata;
  return { ok: true, body };
}

/** Provider finish reasons in OpenAI's vocabulary. */
export function finishReason(raw: string | null | undefined): "stop" | "length" | "content_filter" | "tool_calls" {
  switch ((raw ?? "stop").toLowerCase()) {
    case "length":
    case "max_tokens":
      return "length";
    case "content_filter":
    case "safety":
    case "recitation":
    case "refusal":
      return "content_filter";
    case "tool_calls":
    case "tool_use":
      return "tool_calls";
    default:
      return "stop";
  }
}

export type TUsageIn = { inputTokens: number; outputTokens: number } | null | undefined;

export function usageOf(u: TUsageIn): { prompt_tokens: number; completion_tokens: number; total_tokens: number } {
  const p = u?.inputTokens ?? 0;
  const c = u?.outputTokens ?? 0;
  return { prompt_tokens: p, completion_tokens: c, total_tokens: p + c };
}

/** Execute's JSON answer (200) as a chat.completion. */
export function toCompletion(
  model: string,
  created: number,
  answer: {
    decisionId: string;
    provider: string;
    result: { text?: string; model?: string; finishReason?: string | null; usage?: TUsageIn };
    attempts?: unknown;
    costEstimate?: number | null;
  },
) {
  return {
    id: `chatcmpl-${answer.decisionId}`,
    object: "chat.completion" as const,
    created,
    model,
    choices: [
      {
        index: 0,
        message: { role: "assistant" as const, content: answer.result.text ?? "", refusal: null },
        logprobs: null,
        finish_reason: finishReason(answer.result.finishReason),
      },
    ],
    usage: usageOf(answer.result.usage),
    system_fingerprint: null,
    switchyard: {
      decisionId: answer.decisionId,
      provider: answer.provider,
      providerModel: answer.result.model ?? null,
      attempts: answer.attempts ?? [],
      costEstimate: answer.costEstimate ?? null,
    },
  };
}

/** One chat.completion.chunk. */
export function chunk(
  id: string,
  model: string,
  created: number,
  delta: Record<string, unknown> | null,
  finish: string | null,
  usage?: ReturnType<typeof usageOf>,
) {
  return {
    id,
    object: "chat.completion.chunk" as const,
    created,
    model,
    system_fingerprint: null,
    choices: delta === null ? [] : [{ index: 0, delta, logprobs: null, finish_reason: finish }],
    ...(usage ? { usage } : {}),
  };
}

export type TOpenAiError = { error: { message: string; type: string; param: string | null; code: string | null } };

/** OpenAI's error `type` for a status. */
export function errorType(status: number): string {
  if (status === 401) return "authentication_error";
  if (status === 403) return "permission_error";
  if (status === 404) return "invalid_request_error";
  if (status === 429) return "rate_limit_error";
  if (status >= 500) return "server_error";
  return "invalid_request_error";
}

/** A Switchyard field path in the request's own terms (execute's `input.*` are the chat request's fields). */
function paramOf(field: string | undefined): string | null {
  if (!field) return null;
  if (field === "authorization" || field === "idempotency-key" || field === "content-type") return null;
  if (field === "region") return "model";
  if (field === "input.maxTokens") return "max_tokens";
  if (field.startsWith("input.")) return field.slice("input.".length);
  if (field === "attributes" || field.startsWith("attributes.")) return field.replace(/^attributes/, "metadata");
  return field;
}

type TSwitchyardError = {
  error?: { code?: unknown; message?: unknown; field?: unknown; fields?: Array<{ path?: unknown }> };
  providerBody?: unknown;
};

/**
 * A Switchyard error answer (execute's, auth's, the body reader's) in OpenAI's shape. A provider's
 * refusal passed through by execute keeps the provider's own message, type, param and code when
 * its body has OpenAI's (or Anthropic's) shape.
 */
export function toOpenAiError(status: number, body: unknown): TOpenAiError {
  const b = (body ?? {}) as TSwitchyardError;
  const code = typeof b.error?.code === "string" ? b.error.code : status >= 500 ? "internal" : "error";
  const message = typeof b.error?.message === "string" ? b.error.message : `Switchyard answered ${status}`;
  const field =
    typeof b.error?.field === "string" ? b.error.field : typeof b.error?.fields?.[0]?.path === "string" ? (b.error.fields[0].path as string) : undefined;
  if (code === "provider_rejected") {
    const inner = (b.providerBody as { error?: { message?: unknown; type?: unknown; param?: unknown; code?: unknown } } | null)?.error;
    if (inner && typeof inner === "object" && typeof inner.message === "string") {
      return {
        error: {
          message: inner.message,
          type: typeof inner.type === "string" ? inner.type : errorType(status),
          param: typeof inner.param === "string" ? inner.param : null,
          code: typeof inner.code === "string" ? inner.code : code,
        },
      };
    }
  }
  return { error: { message, type: errorType(status), param: paramOf(field), code } };
}

export function openAiError(status: number, code: string, message: string, param: string | null = null): TOpenAiError {
  return { error: { message, type: errorType(status), param, code } };
}
