import type { IncomingMessage, ServerResponse } from "node:http";
import { z } from "zod";
import { createClock, decide, type Random, type TDecisionRecord } from "../../../router-core/index";
import {
  operationDenied,
  type TAuthenticator,
  errorBody,
  fromZod,
  readArrivedJsonBody,
  readJsonBody,
  sendJson,
  unknownOperation,
  unknownRegion,
  registerEndpoint,
  ZErrorBody,
  type TRouteHandler,
} from "../../edge";
import { decisionIdAt } from "../decision-id";
import { decisionRowOf } from "../decision-log/rows";
import { DecisionLogBusyError, type DecisionLog, type TWriteOutcome } from "../decision-log/writer";
import type { RoutingState } from "../routing-state";
import { countDecision, noteRouted } from "../metrics/counters";
import {
  answerText,
  assertSameRequest,
  attributesDigest,
  existingAnswer,
  type IdempotencyCache,
  type TCachedAnswer,
  type TRequestIdentity,
} from "./idempotency";
import { ZDecideCompactResponse, ZDecideRequest, ZDecideResponse } from "./schema";
import { compactAnswer, compactOfFull, decisionBody, type TAnswerParts } from "./body";

export const DECIDE_MAX_BODY_BYTES = 16 * 1024;

registerEndpoint({
  method: "post",
  path: "/api/v1/decide",
  summary: "Which provider to call for one request (the full explanation with explain: full)",
  description:
    "Evaluates the operation's active factor list (and its shadow version, if any) against cached telemetry. " +
    "Idempotent: the same (operation, requestId) from the same API key within 5 minutes returns the same decision (another key's " +
    "requestId is its own); the same (operation, requestId) with another region or other attributes is refused with 422 idempotency_key_reused. With sync durability " +
    "(the default) the answer comes after the decision is committed to the decision log (or fsynced to the local spool " +
    "while Postgres is unreachable); header x-decision-durability says which. " +
    "The answer is compact by default (provider, decision id, reason code, policy version, fallback, failover order); " +
    'with `explain: "full"` it is the whole decision record, the same as GET /api/v1/decisions/{id} returns. The log keeps the full record either way.',
  tags: ["decisions"],
  request: ZDecideRequest,
  responses: {
    200: {
      description: 'The compact answer (default), or the full decision record with explain: "full"',
      schema: z.union([ZDecideCompactResponse, ZDecideResponse]),
    },
    400: { description: "malformed: the body is not JSON or not the declared shape (names each field)", schema: ZErrorBody },
    401: { description: "Missing or invalid API key", schema: ZErrorBody },
    413: { description: "Body larger than 16 KiB", schema: ZErrorBody },
    415: { description: "Content-Type is not application/json", schema: ZErrorBody },
    422: {
      description:
        "invalid: unknown operation or region (names the field); idempotency_key_reused: the requestId was used within 5 minutes for another region or other attributes",
      schema: ZErrorBody,
    },
    503: { description: "Decision log cannot take more right now (see Retry-After)", schema: ZErrorBody },
  },
});

export type TDecideDeps = {
  authenticate: TAuthenticator;
  state: RoutingState;
  log: DecisionLog;
  cache: IdempotencyCache;
  instanceId: string;
  now?: () => number;
  random?: Random;
};

const ANSWER_HEADERS = { "content-type": "application/json; charset=utf-8", "cache-control": "no-store" } as const;

/** An earlier decision for the same request, answered again as it was logged (compact unless the full answer was asked for). */
function sendReplay(res: ServerResponse, full: string, explainFull: boolean): void {
  const body = explainFull ? full : compactOfFull(full);
  res.writeHead(200, { ...ANSWER_HEADERS, "content-length": Buffer.byteLength(body), "x-decision-durability": "replayed", "idempotent-replayed": "true" });
  res.end(body);
}

/**
 * A fresh decision's compact answer: small enough that one write with the headers carries it.
 * The headers as a flat list: node stores them as they are, without an object to spread and a
 * setHeader (name check, lower-casing) per header.
 */
function sendCompact(res: ServerResponse, body: string, durability: string): void {
  res.writeHead(200, [
    "content-type",
    ANSWER_HEADERS["content-type"],
    "cache-control",
    ANSWER_HEADERS["cache-control"],
    "content-length",
    String(Buffer.byteLength(body)),
    "x-decision-durability",
    durability,
  ]);
  res.end(body);
}

/**
 * A fresh decision's full answer in three writes that leave as one (the response corks its socket
 * until end()): the text before the candidate list, the list's bytes, encoded once per list, and
 * the text after it. Writing the whole text instead flattened and UTF-8-encoded about 4 KB per
 * decide, and allocated it on the heap every scavenge has to walk past.
 */
function sendParts(res: ServerResponse, parts: TAnswerParts, durability: string): void {
  const length = Buffer.byteLength(parts.before) + parts.list.length + Buffer.byteLength(parts.after);
  res.writeHead(200, { ...ANSWER_HEADERS, "content-length": length, "x-decision-durability": durability });
  res.write(parts.before);
  res.write(parts.list);
  res.end(parts.after);
}

/**
 * POST /api/v1/decide. The hot path: parse, look up prebuilt state, run router-core, serialise
 * once (the same text is the response and the logged record), and wait for the group commit.
 */
export function createDecideHandler(deps: TDecideDeps): TRouteHandler {
  const now = deps.now ?? Date.now;
  const clock = createClock(now);
  const random: Random = deps.random ?? { next: Math.random };
  let sequence = 0;
  const authenticate = deps.authenticate;

  return async (req: IncomingMessage, res: ServerResponse) => {
    const auth = await authenticate(req, "decide");
    if (!auth.ok) {
      sendJson(res, auth.status, auth.body, auth.headers);
      return;
    }
    // After that await, a body that came with its head has been pushed into the request stream and
    // is read at once, without another promise and turn; undefined: not all of it is there yet (a
    // parsed body is never undefined; `null` is a body).
    const arrived = readArrivedJsonBody(req, DECIDE_MAX_BODY_BYTES);
    const raw = arrived !== undefined ? arrived : await readJsonBody(req, DECIDE_MAX_BODY_BYTES);
    const parsed = ZDecideRequest.safeParse(raw);
    if (!parsed.success) throw fromZod(parsed.error);
    const input = parsed.data;
    const explainFull = input.explain === "full";
    const refused = operationDenied(auth.principal, input.operation);
    if (refused && !refused.ok) {
      sendJson(res, refused.status, refused.body, refused.headers);
      return;
    }
    const state = deps.state;
    const active = state.policyFor(input.operation);
    if (!active) {
      throw unknownOperation(input.operation, state.operations());
    }
    const routerState = state.snapshotFor(input.operation, input.region);
    if (!routerState) {
      throw unknownRegion(input.operation, input.region, state.knownRegions(input.operation));
    }

    // The requestId is the calling key's own: another key's identical requestId is another request.
    const caller = auth.principal.id;
    const key = `${caller}\u001f${input.operation}\u001f${input.requestId}`;
    const digest = attributesDigest(input.attributes);
    const request: TRequestIdentity = { region: input.region, attributesDigest: digest };
    const cached = deps.cache.get(key);
    if (cached) {
      const answer = cached instanceof Promise ? await cached : cached;
      assertSameRequest(answer, request, input.requestId);
      sendReplay(res, answerText(answer), explainFull);
      return;
    }

    const at = now();
    const decisionId = decisionIdAt(at);
    const record: TDecisionRecord = decide(
      { operation: input.operation, region: input.region, requestId: input.requestId, decisionId, sequence: sequence++, attributes: input.attributes },
      routerState,
      active.policy,
      clock,
      random,
      active.shadow ? { shadow: active.shadow } : undefined,
    );
    noteRouted(record.operation, record.region, record.selected);
    const degraded = !state.dbAvailable;
    const refreshedAt = state.lastRefreshAt;
    const {
      text: body,
      parts,
      stored,
    } = decisionBody(decisionId, record, {
      degraded,
      stateAgeMs: refreshedAt === null ? null : Math.max(0, at - refreshedAt),
      attributesDigest: digest,
    });
    const row = decisionRowOf(record, { id: decisionId, degraded, body, durability: deps.log.durability, instanceId: deps.instanceId, apiKeyId: caller });

    // No promise per decision beyond the write's own: a concurrent duplicate (rare) gets one of
    // the answer when it asks, and the cache is told the answer once the write is done.
    const written = deps.log.submit(row, stored);
    const fresh: TCachedAnswer = { decisionId, text: stored.text, list: stored.list, request };
    const slot = deps.cache.begin(key, () => written.then((o) => (o.status === "existing" ? existingAnswer(o.existing) : fresh)));
    let outcome: TWriteOutcome;
    try {
      outcome = await written;
    } catch (err) {
      deps.cache.drop(slot);
      if (err instanceof DecisionLogBusyError) {
        sendJson(res, 503, errorBody("decision_log_unavailable", err.message), { "retry-after": String(err.retryAfterSeconds) });
        return;
      }
      throw err;
    }
    if (outcome.status === "existing") {
      const answer = existingAnswer(outcome.existing);
      deps.cache.settle(slot, answer);
      assertSameRequest(answer, request, input.requestId);
      sendReplay(res, answerText(answer), explainFull);
      return;
    }
    deps.cache.settle(slot, fresh);
    countDecision(record.operation, record.region, record.selected, record.reasonCode);
    // The answer decide built, in its parts (answerText would rebuild the same text).
    if (explainFull) sendParts(res, parts, outcome.status);
    else sendCompact(res, compactAnswer(decisionId, record, degraded), outcome.status);
  };
}
