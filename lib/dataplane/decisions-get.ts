import type pg from "pg";
import { z } from "zod";
import { operationDenied, type TAuthenticator, ContractError, malformed, sendJson, registerEndpoint, ZErrorBody, type TRouteHandler } from "../edge";
import { isUuid } from "./decision-id";
import { readDecisionRecord } from "./decision-log/lookup";
import type { TDecisionReadStore } from "./decision-log/store";
import { ZDecideResponse } from "./decide/schema";

const ZProviderCallOutcome = z.object({
  provider: z.string(),
  status: z.string(),
  errorClass: z.string().nullable(),
  httpStatus: z.number().int().nullable(),
  latencyMs: z.number(),
  retryCount: z.number().int(),
  reportedAt: z.string(),
});

const ZBusinessOutcome = z.object({
  provider: z.string().nullable(),
  completed: z.boolean(),
  failureStage: z.string().nullable(),
  withinSla: z.boolean(),
  reportedAt: z.string(),
});

export const ZDecisionWithOutcomes = ZDecideResponse.extend({
  outcomes: z.object({ providerCalls: z.array(ZProviderCallOutcome), business: z.array(ZBusinessOutcome) }),
});

registerEndpoint({
  method: "get",
  path: "/api/v1/decisions/{id}",
  summary: "One decision record with the outcomes reported for it",
  tags: ["decisions"],
  pathParams: { id: { description: "decisionId returned by POST /api/v1/decide", schema: z.uuid() } },
  responses: {
    200: { description: "The record as decide returned it, plus its outcomes", schema: ZDecisionWithOutcomes },
    400: { description: "malformed: id is not a UUID", schema: ZErrorBody },
    401: { description: "Missing or invalid API key", schema: ZErrorBody },
    404: { description: "No such decision, or one of an operation the key may not use", schema: ZErrorBody },
    503: { description: "Postgres is unreachable", schema: ZErrorBody },
  },
});

type TOutcomes = z.infer<typeof ZDecisionWithOutcomes>["outcomes"];

/** ClickHouse mode: the outcomes from the store that keeps them beside their decisions. */
async function readStoredOutcomes(store: NonNullable<TDecisionReadStore["outcomes"]>, id: string): Promise<TOutcomes> {
  const out: TOutcomes = { providerCalls: [], business: [] };
  for (const o of await store.list(id)) {
    const reportedAt = new Date(o.at).toISOString();
    if (o.kind === "call") {
      const { provider, status, errorClass, httpStatus, latencyMs, retryCount } = o;
      out.providerCalls.push({ provider, status, errorClass, httpStatus, latencyMs, retryCount, reportedAt });
    } else {
      const { provider, completed, failureStage, withinSla } = o;
      out.business.push({ provider, completed, failureStage, withinSla, reportedAt });
    }
  }
  return out;
}

/**
 * Outcomes live in the telemetry tables (provider_call_outcome, business_outcome), keyed by
 * decision_id; both are read in one round trip. `reads`: a store that keeps them itself.
 */
async function readOutcomes(pool: pg.Pool, id: string, reads?: TDecisionReadStore): Promise<TOutcomes> {
  if (reads?.outcomes) return readStoredOutcomes(reads.outcomes, id);
  const { rows } = await pool.query<{ kind: "call" | "business"; o: Record<string, unknown> }>(
    `select 'call' as kind, json_build_object('provider', provider_key, 'status', status, 'errorClass', error_class,
              'httpStatus', http_status, 'latencyMs', latency_ms, 'retryCount', retry_count, 'reportedAt', reported_at) as o, reported_at
       from provider_call_outcome where decision_id = $1
     union all
     select 'business', json_build_object('provider', provider_key, 'completed', completed, 'failureStage', failure_stage,
              'withinSla', within_sla, 'reportedAt', reported_at), reported_at
       from business_outcome where decision_id = $1
     order by reported_at`,
    [id],
  );
  const providerCalls: z.infer<typeof ZProviderCallOutcome>[] = [];
  const business: z.infer<typeof ZBusinessOutcome>[] = [];
  for (const r of rows) {
    if (r.kind === "call") providerCalls.push(r.o as z.infer<typeof ZProviderCallOutcome>);
    else business.push(r.o as z.infer<typeof ZBusinessOutcome>);
  }
  return { providerCalls, business };
}

/** `reads`: ClickHouse mode's decision store (the record and its outcomes are read there). */
export function createGetDecisionHandler(pool: pg.Pool, authenticate: TAuthenticator, reads?: TDecisionReadStore): TRouteHandler {
  return async (req, res, params) => {
    const auth = await authenticate(req, "read");
    if (!auth.ok) {
      sendJson(res, auth.status, auth.body, auth.headers);
      return;
    }
    const id = (params.id ?? "").toLowerCase();
    if (!isUuid(id)) throw malformed([{ path: "id", message: `must be a UUID, got "${params.id ?? ""}"` }], `id must be a UUID, got "${params.id ?? ""}"`);
    let record: Record<string, unknown> | null;
    let outcomes: Awaited<ReturnType<typeof readOutcomes>>;
    try {
      [record, outcomes] = await Promise.all([readDecisionRecord(pool, id, reads), readOutcomes(pool, id, reads)]);
    } catch (err) {
      if ((err as { severity?: unknown }).severity === undefined) {
        throw new ContractError("database_unavailable", "the decision log is unreachable right now; decide keeps answering and spools records");
      }
      throw err;
    }
    // A decision of an operation the key may not use is answered as absent: a 403 would confirm it exists.
    if (!record || operationDenied(auth.principal, String(record.operation))) throw new ContractError("decision_not_found", `no decision ${id}`, "id");
    sendJson(res, 200, { ...record, outcomes });
  };
}
