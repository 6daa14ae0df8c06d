import { z } from "zod";
import { ZErrorDetail } from "../../http";
import { FAILURE_STAGES } from "../../../router-core/index";

export const OUTCOME_ERROR_CLASSES = ["timeout", "http_5xx", "http_4xx", "throttled", "quota", "regional", "network", "protocol", "other"] as const;
export type TOutcomeErrorClass = (typeof OUTCOME_ERROR_CLASSES)[number];

/** A batch larger than this is refused whole with 413: per-item results would be unbounded too. */
export const MAX_OUTCOME_BATCH = 1_000;

const ZDecisionId = z.string().min(1, "decisionId must not be empty").max(200, "decisionId must be at most 200 characters");
const ZProviderKey = z.string().min(1, "provider must not be empty").max(200, "provider must be at most 200 characters");

/** What happened when the caller called the provider it was routed to (or a fallback provider). */
export const ZProviderCallOutcome = z
  .strictObject({
    type: z.literal("provider_call"),
    decisionId: ZDecisionId,
    provider: ZProviderKey,
    status: z.enum(["success", "failure"]),
    /** Required when status is failure; says whether the provider is to blame (http_4xx is the caller's). */
    errorClass: z.enum(OUTCOME_ERROR_CLASSES).optional(),
    httpStatus: z.number().int().min(100).max(599).optional(),
    latencyMs: z.number().min(0).max(86_400_000),
    retryCount: z.number().int().min(0).max(1_000),
    /** Streaming calls: time to the first byte of output, ms. */
    ttfbMs: z.number().min(0).max(86_400_000).optional(),
  })
  .superRefine((o, ctx) => {
    if (o.status === "failure" && o.errorClass === undefined) {
      ctx.addIssue({ code: "custom", path: ["errorClass"], message: "errorClass is required when status is failure" });
    }
    if (o.status === "success" && o.errorClass !== undefined) {
      ctx.addIssue({ code: "custom", path: ["errorClass"], message: "errorClass is only allowed when status is failure" });
    }
  });

/** Whether the business flow behind the decision completed; failureStage says whether the provider is to blame. */
export const ZBusinessOutcome = z
  .strictObject({
    type: z.literal("business"),
    decisionId: ZDecisionId,
    completed: z.boolean(),
    /** Required when completed is false. */
    failureStage: z.enum(FAILURE_STAGES).optional(),
    withinSla: z.boolean(),
    /** The provider that served the flow; omitted: the decision's selected provider. */
    provider: ZProviderKey.optional(),
  })
  .superRefine((o, ctx) => {
    if (!o.completed && o.failureStage === undefined) {
      ctx.addIssue({ code: "custom", path: ["failureStage"], message: "failureStage is required when completed is false" });
    }
    if (o.completed && o.failureStage !== undefined) {
      ctx.addIssue({ code: "custom", path: ["failureStage"], message: "failureStage is only allowed when completed is false" });
    }
  });

export const ZOutcome = z.discriminatedUnion("type", [ZProviderCallOutcome, ZBusinessOutcome]);
export type TProviderCallOutcome = z.infer<typeof ZProviderCallOutcome>;
/**
 * Execute mode's report of a call it made: a provider-call outcome plus, for a failure, the
 * transport's cause for the console's drilldown. Not part of ZProviderCallOutcome: a data-plane
 * reporter cannot set it (the strict object refuses the field).
 */
export type TExecutedCall = TProviderCallOutcome & { detail?: string };
export type TBusinessOutcome = z.infer<typeof ZBusinessOutcome>;
export type TOutcome = z.infer<typeof ZOutcome>;

/**
 * The batch envelope. Items are validated one by one after this (each gets its own result), so
 * the envelope only checks that `outcomes` is an array.
 */
export const ZOutcomeBatch = z.strictObject({ outcomes: z.array(z.unknown()).max(MAX_OUTCOME_BATCH) });

export const OUTCOME_RESULTS = ["recorded", "spooled", "invalid", "unknown_decision"] as const;

export const ZOutcomeItemResult = z.object({
  index: z.number().int(),
  /**
   * 201 recorded, 202 spooled (database unreachable; written when it returns), 400 malformed, 422 invalid (unknown provider, or
   * one the decision did not offer), 404 unknown decision (or another operation's), 409 outcome_limit (the decision's bound reached).
   */
  status: z.union([z.literal(201), z.literal(202), z.literal(400), z.literal(404), z.literal(409), z.literal(422)]),
  result: z.enum(OUTCOME_RESULTS),
  decisionId: z.string().nullable(),
  /** The item's refusal, in the error contract's shape (docs/errors.md). */
  error: ZErrorDetail.optional(),
});
export type TOutcomeItemResult = z.infer<typeof ZOutcomeItemResult>;

export const ZOutcomeBatchResponse = z.object({
  results: z.array(ZOutcomeItemResult),
  recorded: z.number().int(),
  spooled: z.number().int(),
  rejected: z.number().int(),
});
export type TOutcomeBatchResponse = z.infer<typeof ZOutcomeBatchResponse>;

export const ZOutcomeSingleResponse = ZOutcomeItemResult.omit({ index: true, error: true });
