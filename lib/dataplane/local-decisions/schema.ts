import { z } from "zod";
import { isUuid, uuidV7Time } from "../decision-id";

export const MAX_LOCAL_DECISION_BATCH = 1_000;

/**
 * A decision a client made without asking Switchyard: `fail_static` (Switchyard was unreachable
 * or slow, the client answered from the last decision it saw or its static order) or `local`
 * (evaluated in the client's process). The id is the client's UUIDv7, whose time is the row's
 * `created_at`, so a record sent twice is one row.
 */
export const ZLocalDecision = z.strictObject({
  decisionId: z.string().refine((s) => isUuid(s) && uuidV7Time(s) !== null, "decisionId must be a UUIDv7 (its time is the decision's)"),
  operation: z.string().min(1).max(128),
  region: z.string().min(1).max(64),
  requestId: z.string().min(1).max(200),
  selected: z.string().min(1).max(200).nullable(),
  mode: z.enum(["fail_static", "local"]),
  /** fail_static: where the answer came from. */
  source: z.enum(["last_decision", "static", "snapshot"]).optional(),
  /** The failover order the client was given, selected first. */
  order: z.array(z.string().min(1).max(200)).max(64).optional(),
  /** Why Switchyard was not asked or did not answer. */
  reason: z.string().max(1_000).optional(),
  policyVersion: z.string().max(200).nullable().optional(),
  reasonCode: z.string().min(1).max(64).optional(),
  /** local: router-core's record as the client made it. */
  record: z.record(z.string(), z.unknown()).optional(),
  /** local: the client decided on a snapshot it could not refresh (Switchyard unreachable). */
  degraded: z.boolean().optional(),
  /**
   * The share of such decisions the client sends records for: 1 for every non-routine one (stale,
   * degraded, fallback, override or pin, fail-static, shadow disagreement), the sampling rate for a
   * routine one. Kept in the record, so a view built from records can say it is a sample.
   */
  sampleRate: z.number().gt(0).max(1).optional(),
  /** The client counts this decision in its count reports (POST /decisions/counts): the row is not counted again. */
  countReported: z.boolean().optional(),
});
export type TLocalDecision = z.infer<typeof ZLocalDecision>;

export const ZLocalDecisionBatch = z.strictObject({ decisions: z.array(ZLocalDecision).min(1).max(MAX_LOCAL_DECISION_BATCH) });
