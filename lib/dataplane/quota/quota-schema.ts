import { z } from "zod";

/**
 * A provider quota as the catalogue stores it and the data plane enforces it. It lives beside the
 * quota code so that the data plane never imports the catalogue (which sits above it).
 */
export const QUOTA_UNITS = ["requests", "tokens"] as const;

export const ZQuota = z.strictObject({
  unit: z.enum(QUOTA_UNITS),
  limit: z.number().int().positive().max(1e12),
  windowSeconds: z
    .number()
    .int()
    .min(1)
    .max(31 * 86_400),
  /** rolling: the window slides; fixed: it resets at each window boundary. */
  reset: z.enum(["rolling", "fixed"]).default("rolling"),
});
