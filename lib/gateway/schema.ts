import { z } from "zod";

export const EXECUTE_MAX_BODY_BYTES = 8 * 1024 * 1024;

export const ZExecuteRequest = z.strictObject({
  region: z.string().min(1).max(64).describe("Region of the request, e.g. EU"),
  requestId: z
    .string()
    .min(1)
    .max(200)
    .optional()
    .describe("Caller's id; without an Idempotency-Key header it is the idempotency key. Omitted: one is generated"),
  attributes: z.record(z.string().min(1).max(64), z.string().max(1024)).optional().describe("As for decide: `compliance` and `providers` are read by routing"),
  input: z
    .record(z.string(), z.unknown())
    .describe("LLM operations: {messages: [{role, content}], system?, maxTokens?, temperature?}. Other operations: the fields the provider templates read"),
  stream: z.boolean().default(false).describe("LLM operations: answer as Server-Sent Events"),
  deadlineMs: z.number().int().min(1).max(600_000).optional().describe("Total time for every attempt; at most the operation's deadline"),
  queue: z
    .boolean()
    .default(true)
    .describe(
      "false: never queue. When nothing is eligible and the fallback policy would queue, answer 503 with Retry-After instead of 202, for callers that retry rather than poll",
    ),
});
export type TExecuteRequest = z.output<typeof ZExecuteRequest>;

export const ZAttempt = z.object({
  provider: z.string(),
  errorClass: z.enum(["transient", "rate_limit", "permanent"]).nullable().describe("null: the attempt succeeded"),
  outcomeErrorClass: z.string().nullable().describe("The outcome errorClass recorded for metrics and breakers"),
  httpStatus: z.number().nullable(),
  latencyMs: z.number(),
  ttfbMs: z.number().optional().describe("Streaming: time to the first byte of output"),
  detail: z.string().optional(),
  called: z.boolean().describe("false: skipped without a call (credential missing, provider throttled)"),
});
export type TAttempt = z.infer<typeof ZAttempt>;

export const ZExecuteResponse = z.object({
  decisionId: z.string(),
  provider: z.string().describe("The provider whose answer this is"),
  result: z
    .object({
      text: z.string().optional(),
      model: z.string().optional(),
      finishReason: z.string().nullable().optional(),
      usage: z.object({ inputTokens: z.number(), outputTokens: z.number() }).optional(),
      status: z.number().describe("The provider's HTTP status"),
      body: z.unknown().optional().describe("Generic HTTP adapter: the provider's JSON body"),
    })
    .loose(),
  attempts: z.array(ZAttempt),
  costEstimate: z.number().nullable(),
  cached: z.object({ ageSeconds: z.number() }).optional().describe("Present when answered from the cache because nothing was eligible"),
});

export const ZQueuedResponse = z.object({
  status: z.literal("queued"),
  jobId: z.string(),
  position: z.number().int(),
  pollUrl: z.string(),
  retryAfterSeconds: z.number(),
  decisionId: z.string().nullable(),
});
