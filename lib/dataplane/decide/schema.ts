import { z } from "zod";

export const ZDecideRequest = z.strictObject({
  operation: z.string().min(1).max(200).describe("Operation key, e.g. SEND_SMS"),
  region: z.string().min(1).max(64).describe("Region of the request, e.g. EU"),
  requestId: z.string().min(1).max(200).describe("Caller's id for the request; the same (operation, requestId) within 5 minutes returns the same decision"),
  attributes: z
    .record(z.string().min(1).max(64), z.string().max(1024))
    .optional()
    .describe("Free-form attributes; `compliance` (comma-separated tags) and `providers` (comma-separated allow-list) are read by routing"),
  explain: z
    .enum(["compact", "full"])
    .optional()
    .describe("compact (the default): what a caller acts on; full: the whole decision record, as GET /api/v1/decisions/{id} returns it"),
});
export type TDecideRequest = z.infer<typeof ZDecideRequest>;

const ZGateOutcome = z.object({ gate: z.string(), passed: z.boolean(), detail: z.string() }).loose();

const ZCandidate = z
  .object({
    provider: z.string(),
    priority: z.number().int(),
    gates: z.array(ZGateOutcome),
    passedGates: z.boolean(),
    eligible: z.boolean(),
    contributions: z.array(z.object({}).loose()),
    score: z.number().nullable(),
    share: z.number().nullable(),
    selectionProbability: z.number(),
    metricsAt: z.number().nullable().describe("Time of the newest data in the candidate's metrics, epoch ms; its age at the decision is at − metricsAt"),
    stale: z.boolean(),
    sampleCount: z.number(),
    metricScope: z.enum(["region", "operation", "none"]),
  })
  .loose();

/** The default answer (explain compact): what a caller acts on; the full record is one GET /api/v1/decisions/{id} away. */
export const ZDecideCompactResponse = z
  .object({
    decisionId: z.string().describe("UUIDv7; GET /api/v1/decisions/{id} returns the full record with its outcomes"),
    operation: z.string(),
    region: z.string(),
    requestId: z.string(),
    policyVersion: z.string().nullable(),
    selected: z.string().nullable().describe("Provider to call; null when the fallback policy answers"),
    reasonCode: z.string(),
    fallback: z.object({}).loose().nullable(),
    degraded: z.boolean().describe("True when answered from cached state while Postgres was unreachable"),
    order: z
      .array(z.object({ provider: z.string(), selectionProbability: z.number() }))
      .describe("Failover order: the selected provider, then the other eligible ones by score, each with its selection probability"),
  })
  .loose();
export type TDecideCompactResponse = z.infer<typeof ZDecideCompactResponse>;

/** The full answer (explain full): the whole decision record. */
export const ZDecideResponse = z
  .object({
    decisionId: z.string().describe("UUIDv7; GET /api/v1/decisions/{id} returns this record with its outcomes"),
    id: z.string(),
    at: z.number().describe("Decision time, epoch ms"),
    operation: z.string(),
    region: z.string(),
    requestId: z.string(),
    policyVersion: z.string().nullable(),
    strategy: z.string(),
    selected: z.string().nullable().describe("Provider to call; null when the fallback policy answers"),
    reasonCode: z.string(),
    override: z.string(),
    candidates: z.array(ZCandidate),
    scoreMargin: z.number().nullable(),
    metricAgeSeconds: z.number().nullable(),
    stale: z.boolean(),
    fallback: z.object({}).loose().nullable(),
    shadow: z
      .object({
        policyVersion: z.string().nullable(),
        selected: z.string().nullable(),
        reasonCode: z.string(),
        agrees: z.boolean(),
        scoreMargin: z.number().nullable(),
      })
      .nullable(),
    strategyEvidence: z
      .object({
        strategy: z.enum(["price_weighted", "price_latency_penalty"]),
        basePrice: z.number().describe("The cheapest eligible price"),
        p99BaselineMs: z.number().nullable(),
        p99BaselineFrom: z.enum(["factor_list", "lowest_eligible_p99"]).nullable(),
        penaltyFloor: z.number().nullable(),
        rows: z.array(z.object({ provider: z.string(), price: z.number(), p99Ms: z.number().nullable(), penalty: z.number().nullable(), weight: z.number() })),
      })
      .optional()
      .describe("Under a price strategy: each eligible provider's price, p99, latency penalty and weight; P(selected) is the candidate's selectionProbability"),
    degraded: z.boolean().describe("True when answered from cached state while Postgres was unreachable"),
    stateAgeMs: z.number().nullable().describe("Age of the cached policy/catalogue/override state"),
    attributesDigest: z
      .string()
      .nullable()
      .describe("SHA-256 (base64url) of the request's attributes sorted by name, null without; a retry under the same requestId must match it and the region"),
  })
  .loose();
