import { z } from "zod";
import type { TExecuteBody } from "./translate";

/**
 * OpenAI's Responses request, text in and text out: `input` as a string or message items with
 * text parts, `instructions` as the system prompt. What needs state Switchyard does not keep
 * (previous_response_id, conversation, background), tools, reasoning and non-text parts are
 * refused by name; bookkeeping and sampling hints no adapter carries are accepted and ignored.
 */
const ZPart = z.looseObject({ type: z.string().max(64), text: z.string().optional() });

const ZInputItem = z.looseObject({
  type: z.string().max(64).optional(),
  role: z.string().max(32).optional(),
  content: z.union([z.string(), z.array(ZPart).max(10_000)]).optional(),
});

export const ZResponsesRequest = z.looseObject({
  model: z.string().min(1).max(200),
  input: z.union([z.string(), z.array(ZInputItem).min(1).max(100_000)]),
  instructions: z.string().nullish(),
  max_output_tokens: z.number().int().min(1).max(1_000_000).nullish(),
  temperature: z.number().min(0).max(2).nullish(),
  stream: z.boolean().nullish(),
  /** Routing attributes (`compliance`, `providers`, …), as on chat completions. */
  metadata: z.record(z.string().min(1).max(64), z.string().max(1024)).nullish(),
});
export type TResponsesRequest = z.output<typeof ZResponsesRequest>;

const IGNORED = new Set([
  "user",
  "store",
  "top_p",
  "service_tier",
  "safety_identifier",
  "prompt_cache_key",
  "prompt_cache_retention",
  "truncation",
  "parallel_tool_calls",
  "stream_options",
]);
const KNOWN = new Set(Object.keys(ZResponsesRequest.shape));

export type TParamError = { param: string; message: string };

/** Present fields Switchyard cannot honour; the first is refused. An empty `tools` and `tool_choice: "none"` say nothing and pass. */
export function unsupportedResponsesParam(body: Record<string, unknown>): TParamError | null {
  for (const [k, v] of Object.entries(body)) {
    if (KNOWN.has(k) || IGNORED.has(k) || v === null || v === undefined) continue;
    if (k === "tools" && Array.isArray(v) && v.length === 0) continue;
    if ((k === "tool_choice" && v === "none") || (k === "include" && Array.isArray(v) && v.length === 0)) continue;
    if (k === "text" && isPlainText(v)) continue;
    return { param: k, message: `${k} is not supported by Switchyard's Responses endpoint (text input and output only)` };
  }
  return null;
}

/** `text: {format: {type: "text"}, verbosity?}`: plain text output, which is what Switchyard answers anyway. */
function isPlainText(v: unknown): boolean {
  const t = v as { format?: { type?: unknown } } | null;
  return typeof t === "object" && t !== null && (t.format === undefined || t.format?.type === "text");
}

const ROLES = { user: "user", assistant: "assistant", system: "system", developer: "system" } as const;

/** One input item as a chat message; anything but a text message (function calls, reasoning, images) refused naming it. */
function toMessage(
  item: z.output<typeof ZInputItem>,
  i: number,
): { ok: true; role: "system" | "user" | "assistant"; content: string } | { ok: false; error: TParamError } {
  const role = ROLES[item.role as keyof typeof ROLES];
  if ((item.type !== undefined && item.type !== "message") || role === undefined || item.content === undefined) {
    const what = item.type ?? (item.role ? `role ${item.role}` : "an item without role and content");
    return { ok: false, error: { param: `input.${i}`, message: `input items of type ${what} are not supported; only text messages` } };
  }
  if (typeof item.content === "string") return { ok: true, role, content: item.content };
  let content = "";
  for (const [j, part] of item.content.entries()) {
    if ((part.type !== "input_text" && part.type !== "output_text") || typeof part.text !== "string") {
      return {
        ok: false,
        error: { param: `input.${i}.content.${j}`, message: `content parts of type ${part.type} are not supported; only input_text and output_text` },
      };
    }
    content += part.text;
  }
  return { ok: true, role, content };
}

/** The execute request for a Responses call. */
export function toResponsesExecuteBody(
  req: TResponsesRequest,
  region: string,
  requestId: string | undefined,
): { ok: true; body: TExecuteBody & { input: { system?: string } } } | { ok: false; error: TParamError } {
  const messages: TExecuteBody["input"]["messages"] = [];
  if (typeof req.input === "string") messages.push({ role: "user", content: req.input });
  else {
    for (const [i, item] of req.input.entries()) {
      const m = toMessage(item, i);
      if (!m.ok) return m;
      messages.push({ role: m.role, content: m.content });
    }
  }
  const body: TExecuteBody & { input: { system?: string } } = {
    region,
    input: {
      messages,
      ...(req.instructions ? { system: req.instructions } : {}),
      ...(req.max_output_tokens != null ? { maxTokens: req.max_output_tokens } : {}),
      ...(req.temperature != null ? { temperature: req.temperature } : {}),
    },
    stream: req.stream === true,
    queue: false,
  };
  if (requestId !== undefined) body.requestId = requestId;
  if (req.metadata && Object.keys(req.metadata).length > 0) body.attributes = req.metadata;
  return { ok: true, body };
}

type TUsageIn = { inputTokens?: number; outputTokens?: number } | null | undefined;

export function responsesUsage(u: TUsageIn) {
  const input = u?.inputTokens ?? 0;
  const output = u?.outputTokens ?? 0;
  return {
    input_tokens: input,
    input_tokens_details: { cached_tokens: 0 },
    output_tokens: output,
    output_tokens_details: { reasoning_tokens: 0 },
    total_tokens: input + output,
  };
}

/** A finish reason that cut the answer short: the response is `incomplete`, as OpenAI reports it. */
export function incompleteReason(finish: string | null | undefined): "max_output_tokens" | "content_filter" | null {
  switch ((finish ?? "").toLowerCase()) {
    case "length":
    case "max_tokens":
      return "max_output_tokens";
    case "content_filter":
    case "safety":
    case "recitation":
    case "refusal":
      return "content_filter";
    default:
      return null;
  }
}

/** The output message item: one text part. */
export function outputMessage(decisionId: string, text: string, status: "in_progress" | "completed" | "incomplete") {
  return {
    id: `msg_${decisionId}`,
    type: "message" as const,
    status,
    role: "assistant" as const,
    content: status === "in_progress" ? [] : [{ type: "output_text" as const, text, annotations: [], logprobs: [] }],
  };
}

export type TResponseFields = { model: string; createdAt: number; request: TResponsesRequest };

/** A `response` object; `done` null while in progress. */
export function responseObject(
  f: TResponseFields,
  decisionId: string,
  done: { text: string; finishReason: string | null | undefined; usage: TUsageIn; extra?: Record<string, unknown> } | null,
) {
  const incomplete = done ? incompleteReason(done.finishReason) : null;
  const status = done === null ? "in_progress" : incomplete ? "incomplete" : "completed";
  return {
    id: `resp_${decisionId}`,
    object: "response" as const,
    created_at: f.createdAt,
    status,
    error: null,
    incomplete_details: incomplete ? { reason: incomplete } : null,
    instructions: f.request.instructions ?? null,
    max_output_tokens: f.request.max_output_tokens ?? null,
    model: f.model,
    output: done === null ? [] : [outputMessage(decisionId, done.text, status === "incomplete" ? "incomplete" : "completed")],
    parallel_tool_calls: false,
    previous_response_id: null,
    reasoning: { effort: null, summary: null },
    store: false,
    temperature: f.request.temperature ?? null,
    text: { format: { type: "text" } },
    tool_choice: "none",
    tools: [],
    top_p: null,
    truncation: "disabled",
    usage: done === null ? null : responsesUsage(done.usage),
    metadata: f.request.metadata ?? {},
    ...(done?.extra ? { switchyard: done.extra } : {}),
  };
}
