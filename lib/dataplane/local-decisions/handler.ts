import type pg from "pg";
import { type TPrincipal, sendJson, registerEndpoint, ZErrorBody, type TRoute } from "../../edge";
import { uuidV7Time } from "../decision-id";
import type { TDecisionRow } from "../decision-log/rows";
import { DecisionLogBusyError, type DecisionLog } from "../decision-log/writer";
import type { RoutingState } from "../routing-state";
import type { TErrorDetail } from "../../http";
import { createLocalCountRoute } from "./counts";
import { readReport } from "./read-report";
import { ZLocalDecisionBatch, type TLocalDecision } from "./schema";
import { createLocalDecisionValidator } from "./validate";

const MAX_BODY_BYTES = 8 * 1024 * 1024;

export type TLocalDecisionResult = {
  /** The item's position in the batch. */
  index: number;
  decisionId: string;
  /** committed / spooled / buffered: logged now; existing: already logged (a resend, or the same requestId decided by Switchyard); refused: see error. */
  result: "committed" | "spooled" | "buffered" | "existing" | "refused";
  /** The refusal in the error contract's shape; `fields` names the item's field (`decisions.3.selected`). */
  error?: TErrorDetail;
};

registerEndpoint({
  method: "post",
  path: "/api/v1/decisions/batch",
  summary: "Log decisions a client made itself (fail-static or local evaluation)",
  description:
    "Each decision becomes a decision-log row marked with its mode (record.mode, record.local: true; reason_code fail_static " +
    "for fail-static ones), so the decision log, the console and outcome ingestion see them. Idempotent: the id's time is the " +
    "row's, so a resent decision is not logged twice. Per-item results; an operation the key may not use or that does not " +
    "exist, an unknown region, and a selected or order provider that is not in the catalogue, not in the operation's policy " +
    "(as of the policyVersion reported, when the server still holds it) or does not serve the region are refused per item, " +
    "naming the field. Each item costs one request of the key's rate limit (429 for the whole batch when it does not hold them). " +
    "503 with Retry-After when the decision log is full (send the batch again).",
  tags: ["decisions"],
  request: ZLocalDecisionBatch,
  responses: {
    200: { description: "{results: [{index, decisionId, result, error?}], logged, existing, refused}; error.fields names the item field" },
    400: { description: "Invalid body (names the field)", schema: ZErrorBody },
    401: { description: "Missing or invalid API key", schema: ZErrorBody },
    429: { description: "The key's rate limit does not hold this many items (Retry-After)", schema: ZErrorBody },
    503: { description: "Decision log cannot take more right now (Retry-After)", schema: ZErrorBody },
  },
});

/** The row for a client's decision: its own fields, and the record marked as made outside Switchyard. */
export function localDecisionRow(
  d: TLocalDecision,
  durability: TDecisionRow["durability"],
  instanceId: string,
  receivedAt: number,
  apiKeyId: string | null = null,
): TDecisionRow {
  const at = uuidV7Time(d.decisionId)!;
  const reasonCode = d.mode === "fail_static" ? "fail_static" : (d.reasonCode ?? "local");
  const record = {
    ...(d.record ?? {}),
    decisionId: d.decisionId,
    id: d.decisionId,
    at,
    operation: d.operation,
    region: d.region,
    requestId: d.requestId,
    selected: d.selected,
    reasonCode,
    policyVersion: d.policyVersion ?? (d.record?.policyVersion as string | null | undefined) ?? null,
    candidates: Array.isArray(d.record?.candidates) ? d.record.candidates : [],
    mode: d.mode,
    local: true,
    ...(d.source ? { source: d.source } : {}),
    ...(d.order ? { order: d.order } : {}),
    ...(d.reason ? { reason: d.reason } : {}),
    ...(d.sampleRate !== undefined ? { sampleRate: d.sampleRate } : {}),
    reportedAt: receivedAt,
  };
  const rec = d.record as
    | {
        scoreMargin?: unknown;
        metricAgeSeconds?: unknown;
        stale?: unknown;
        shadow?: { policyVersion?: string | null; selected?: string | null; agrees?: boolean } | null;
      }
    | undefined;
  return {
    id: d.decisionId,
    createdAt: at,
    operation: d.operation,
    region: d.region,
    // A decide the client gave up on may still have been logged under the same requestId, and the
    // log's idempotency would then answer "existing" and drop what the client actually did: the
    // fail-static row gets a request id of its own (the record keeps the caller's).
    requestId: d.mode === "fail_static" ? `fail_static:${d.requestId}` : d.requestId,
    policyVersion: record.policyVersion,
    shadowVersion: rec?.shadow?.policyVersion ?? null,
    selectedProvider: d.selected,
    reasonCode,
    shadowPick: rec?.shadow?.selected ?? null,
    shadowAgrees: typeof rec?.shadow?.agrees === "boolean" ? rec.shadow.agrees : null,
    scoreMargin: typeof rec?.scoreMargin === "number" ? rec.scoreMargin : null,
    // A fail-static decision was made without current metrics: it is stale by definition.
    stale: d.mode === "fail_static" ? true : rec?.stale === true,
    metricAgeMs: typeof rec?.metricAgeSeconds === "number" ? Math.round(rec.metricAgeSeconds * 1000) : null,
    fallbackAction: null,
    degraded: d.mode === "fail_static" || d.degraded === true,
    body: JSON.stringify(record),
    durability,
    instanceId,
    apiKeyId,
    // Validated against the catalogue and policy before the row is built (validate.ts).
    offeredProviders: [...new Set([...(d.selected === null ? [] : [d.selected]), ...(d.order ?? [])])].join(",") || null,
    source: d.mode === "fail_static" ? "fail_static" : "local",
    counted: d.countReported !== true,
  };
}

/** How far a client's clock and buffer may put a decision from the server's now. */
const MAX_AGE_MS = 7 * 86_400_000;
const MAX_AHEAD_MS = 5 * 60_000;

export function createLocalDecisionRoutes(deps: {
  state: RoutingState;
  decisionLog: DecisionLog;
  instanceId: string;
  now?: () => number;
  /** Spends the selected provider's call quota for a newly logged decision (DataPlane.spendQuota). */
  spendQuota?: (provider: string, at: number, calls?: number) => void;
  /** The data plane's pool: with it, POST /api/v1/decisions/counts is served too. */
  pool?: pg.Pool;
}): TRoute[] {
  const now = deps.now ?? Date.now;
  // Two rows with one id in one group-commit transaction would fail the whole transaction (the
  // primary key), other callers' decisions with it: a resend while the first is in flight waits for it.
  const inFlight = new Map<string, Promise<TLocalDecisionResult["result"]>>();
  const validate = createLocalDecisionValidator(deps.state);

  async function logOne(d: TLocalDecision, index: number, principal: TPrincipal, receivedAt: number): Promise<TLocalDecisionResult> {
    const refused = validate(d, index, principal);
    if (refused) return { index, decisionId: d.decisionId, result: "refused", error: refused.error };
    const at = uuidV7Time(d.decisionId)!;
    if (at < receivedAt - MAX_AGE_MS || at > receivedAt + MAX_AHEAD_MS) {
      const message = "the decision's time is more than 7 days ago or 5 minutes ahead";
      return {
        index,
        decisionId: d.decisionId,
        result: "refused",
        error: { code: "out_of_range", message, fields: [{ path: `decisions.${index}.decisionId`, message }] },
      };
    }
    const pending = inFlight.get(d.decisionId);
    if (pending) {
      await pending.catch(() => {});
      return { index, decisionId: d.decisionId, result: "existing" };
    }
    const row = localDecisionRow(d, deps.decisionLog.durability, deps.instanceId, receivedAt, principal.id);
    const p = deps.decisionLog.submit(row).then((o) => o.status);
    inFlight.set(d.decisionId, p);
    try {
      const result = await p;
      // Logged for the first time: its call counts against the quota (a resend answered "existing" does
      // not, nor one whose count report spends it).
      if (d.selected !== null && result !== "existing" && d.countReported !== true) deps.spendQuota?.(d.selected, at);
      return { index, decisionId: d.decisionId, result };
    } finally {
      inFlight.delete(d.decisionId);
    }
  }

  const counts = deps.pool
    ? [
        createLocalCountRoute({
          pool: deps.pool,
          knownProvider: (key) => deps.state.providers().some((p) => p.key === key),
          validate,
          now,
          spendQuota: deps.spendQuota,
        }),
      ]
    : [];
  return [
    ...counts,
    {
      method: "POST",
      path: "/api/v1/decisions/batch",
      handler: async (req, res) => {
        const report = await readReport(req, res, ZLocalDecisionBatch, MAX_BODY_BYTES);
        if (!report) return;
        const { auth, data } = report;
        // Each item is a decision routed to a provider: it costs what a decide call costs.
        const over = auth.charge?.(data.decisions.length - 1);
        if (over) {
          sendJson(res, over.status, over.body, over.headers);
          return;
        }
        const receivedAt = now();
        const seen = new Set<string>();
        let results: TLocalDecisionResult[];
        try {
          results = await Promise.all(
            data.decisions.map((d, index) => {
              if (seen.has(d.decisionId)) return Promise.resolve<TLocalDecisionResult>({ index, decisionId: d.decisionId, result: "existing" });
              seen.add(d.decisionId);
              return logOne(d, index, auth.principal, receivedAt);
            }),
          );
        } catch (err) {
          if (err instanceof DecisionLogBusyError) {
            sendJson(res, 503, { error: { code: "decision_log_unavailable", message: err.message } }, { "retry-after": String(err.retryAfterSeconds) });
            return;
          }
          throw err;
        }
        sendJson(res, 200, {
          results,
          logged: results.filter((r) => r.result === "committed" || r.result === "spooled" || r.result === "buffered").length,
          existing: results.filter((r) => r.result === "existing").length,
          refused: results.filter((r) => r.result === "refused").length,
        });
      },
    },
  ];
}
