import { z } from "zod";
import { type TAuthenticator, readJsonBody, sendJson, registerEndpoint, ZErrorBody, type TRouteHandler } from "../../edge";
import { MAX_BUSINESS_OUTCOMES_PER_DECISION, MAX_CALL_OUTCOMES_PER_ATTEMPT, type OutcomeService } from "./outcomes";
import { MAX_OUTCOME_BATCH, ZOutcome, ZOutcomeBatchResponse, ZOutcomeSingleResponse } from "./schemas";

/** 1,000 outcomes of a few hundred bytes each, with room to spare; larger bodies are 413 before parsing. */
export const OUTCOMES_MAX_BODY_BYTES = 2 * 1024 * 1024;

registerEndpoint({
  method: "post",
  path: "/api/v1/outcomes",
  summary: "Report provider-call and business-completion outcomes of decisions",
  description:
    `One outcome object, or {"outcomes": [...]} with up to ${MAX_OUTCOME_BATCH} of them (413 beyond). Each item is ` +
    "all-or-nothing on its own: it is validated, matched to its decision and stored, or rejected with its own status " +
    "(400 malformed or 422 invalid naming the field, 404 for an unknown decisionId) while the other items of the batch are still stored. " +
    "201: committed to Postgres. 202: Postgres was unreachable, the item is fsynced to the local spool and written when " +
    "it returns (an item whose decision turns out not to exist is then dropped). A batch answers 200 with per-item results " +
    "in input order; a single outcome answers with its own status. Accepted outcomes update this instance's rolling " +
    "metrics and circuit breakers; a provider call failing with http_4xx is the caller's error and does not count against the provider. " +
    "An outcome must name a provider its decision offered (selected, then its failover order; 422 otherwise), at most " +
    `${MAX_CALL_OUTCOMES_PER_ATTEMPT} provider-call outcomes per decision and provider and ${MAX_BUSINESS_OUTCOMES_PER_DECISION} business ` +
    "outcomes per decision are taken (409 outcome_limit beyond), a decision of an operation the key may not use is unknown (404), " +
    "and each item costs one request of the key's rate limit (429 for the whole batch when it does not hold them).",
  tags: ["outcomes"],
  request: z.union([ZOutcome, z.object({ outcomes: z.array(ZOutcome).max(MAX_OUTCOME_BATCH) })]),
  responses: {
    200: { description: "Batch: per-item results", schema: ZOutcomeBatchResponse },
    201: { description: "Single outcome stored", schema: ZOutcomeSingleResponse },
    202: { description: "Single outcome spooled (database unreachable)", schema: ZOutcomeSingleResponse },
    400: { description: "malformed: an outcome or the batch envelope is not the declared shape (names each field)", schema: ZErrorBody },
    401: { description: "Missing or invalid API key", schema: ZErrorBody },
    404: { description: "Single outcome for an unknown decision (or one of an operation the key may not use)", schema: ZErrorBody },
    409: { description: "outcome_limit: the decision already has the most outcomes it takes for that provider", schema: ZErrorBody },
    429: { description: "The key's rate limit does not hold this many items (Retry-After)", schema: ZErrorBody },
    422: { description: "invalid: a single outcome names an unknown provider", schema: ZErrorBody },
    413: { description: `More than ${MAX_OUTCOME_BATCH} outcomes, or a body over 2 MiB`, schema: ZErrorBody },
    415: { description: "Content-Type is not application/json", schema: ZErrorBody },
    503: { description: "Postgres unreachable and the outcome spool is full or not configured", schema: ZErrorBody },
  },
});

export function createOutcomesHandler(service: OutcomeService, authenticate: TAuthenticator): TRouteHandler {
  return async (req, res) => {
    const auth = await authenticate(req, "outcomes");
    if (!auth.ok) {
      sendJson(res, auth.status, auth.body, auth.headers);
      return;
    }
    const body = await readJsonBody(req, OUTCOMES_MAX_BODY_BYTES);
    // Each outcome costs one request of the key's rate (the call took the first).
    const list = (body as { outcomes?: unknown } | null)?.outcomes;
    const over = Array.isArray(list) && list.length > 1 ? auth.charge?.(Math.min(list.length, MAX_OUTCOME_BATCH) - 1) : null;
    if (over) {
      sendJson(res, over.status, over.body, over.headers);
      return;
    }
    const p = auth.principal;
    const result = await service.handle(body, { apiKeyId: p.id, operations: p.kind === "api_key" && p.operationKeys.length > 0 ? p.operationKeys : null });
    sendJson(res, result.status, result.body);
  };
}
