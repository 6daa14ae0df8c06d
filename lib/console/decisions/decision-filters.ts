import { z } from "zod";

/**
 * Decision-log filters as they appear in the URL (shared by the page, the API route and the
 * filter form, so this file stays free of server-only imports). Times are ISO 8601.
 */
export const OUTCOME_FILTERS = ["completed", "failed", "pending"] as const;

const optional = z
  .string()
  .trim()
  .transform((v) => (v === "" ? undefined : v))
  .optional();

export const ZDecisionFilters = z.object({
  from: optional.pipe(z.iso.datetime({ offset: true }).optional()),
  to: optional.pipe(z.iso.datetime({ offset: true }).optional()),
  operation: optional,
  region: optional,
  provider: optional,
  reason: optional,
  policy: optional,
  outcome: optional.pipe(z.enum(OUTCOME_FILTERS).optional()),
  stale: optional.pipe(z.enum(["true", "false"]).optional()),
  /** Keyset cursor: "<created_at epoch ms>_<id>" of the last row already shown. */
  after: optional.pipe(
    z
      .string()
      .regex(/^\d{1,15}_[0-9a-f-]{36}$/)
      .optional(),
  ),
});
export type TDecisionFilters = z.output<typeof ZDecisionFilters>;

export const FILTER_KEYS = ["from", "to", "operation", "region", "provider", "reason", "policy", "outcome", "stale"] as const;

/** The default window when no `from` is given: the last hour, which is what on-call looks at first. */
export const DEFAULT_WINDOW_MS = 3_600_000;
