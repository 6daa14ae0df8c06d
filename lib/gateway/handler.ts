import { hash } from "node:crypto";
import type { IncomingMessage, ServerResponse } from "node:http";
import { z } from "zod";
import { authenticateRequest, operationDenied, readJsonBody, sendJson, registerEndpoint, ZErrorBody, type TRouteHandler } from "../edge";
import { errorBody, fromZod, invalid, malformed } from "../http";
import { DEFAULT_OPERATION_LIMITS } from "./config";
import type { TAnswer } from "./answer";
import type { TGatewayContext } from "./context";
import type { TLoggedDecision } from "./decide-and-log";
import { runAttempts, type TExecution } from "./execute";
import type { TIdempotencyLease } from "./idempotency";
import { newRequestId, prepareExecution } from "./prepare";
import { EXECUTE_MAX_BODY_BYTES, ZExecuteRequest, ZExecuteResponse, ZQueuedResponse, type TExecuteRequest } from "./schema";
import { runStream } from "./stream";

registerEndpoint({
  method: "post",
  path: "/api/v1/execute/{operation}",
  summary: "Route, call the provider, fail over and record the outcome, in one call",
  description:
    "Decides like /decide (same routing state, same decision log), calls the selected provider through its adapter " +
    "(provider_adapter), and on a transient failure or a 429 fails over to the next eligible provider by score, within " +
    "the operation's deadline, max attempts and a retry budget of 20% extra attempts (minimum a few per second). A " +
    "permanent failure (other 4xx) is returned at once with the provider's status. Every attempt is recorded as a " +
    "provider_call outcome. Idempotency-Key (or requestId) executes at most once per provider within the window; a " +
    "repeat returns the stored answer (header idempotent-replayed), and the key with a different request is a 422. With stream: true (LLM operations) the answer is " +
    "Server-Sent Events: start, delta…, done or error. When nothing is eligible: a cached answer where the operation " +
    "allows it, else 202 queued with a poll URL or 503 with Retry-After, per the factor list's fallback_policy.",
  tags: ["execute"],
  request: ZExecuteRequest,
  pathParams: { operation: { description: "Operation key, e.g. LLM_CHAT" } },
  responses: {
    200: { description: "The provider's normalised answer (or an SSE stream with stream: true)", schema: ZExecuteResponse },
    202: { description: "Queued: nothing eligible and the fallback policy queues", schema: ZQueuedResponse },
    400: { description: "malformed: the body or Idempotency-Key is not the declared shape (names each field)", schema: ZErrorBody },
    401: { description: "Missing or invalid API key", schema: ZErrorBody },
    403: { description: "API key not allowed for the operation", schema: ZErrorBody },
    422: {
      description:
        "invalid: unknown operation or region, stream without an LLM provider, or Idempotency-Key with stream (names the field); too large for every provider's context window, input lacks a field a provider template needs, or idempotency_key_reused (the key was used for another request)",
      schema: ZErrorBody,
    },
    503: { description: "Every attempt failed transiently, retry budget exhausted, or nothing eligible (Retry-After)", schema: ZErrorBody },
    504: { description: "The deadline passed before an attempt succeeded", schema: ZErrorBody },
  },
});

registerEndpoint({
  method: "get",
  path: "/api/v1/execute/jobs/{id}",
  summary: "A queued execute request: its position, or its answer once run",
  tags: ["execute"],
  pathParams: { id: { description: "jobId from the 202 answer" } },
  responses: {
    200: { description: "{status: queued, position, retryAfterSeconds} | {status: running} | {status: done, httpStatus, answer}" },
    404: { description: "Unknown job (never queued here, its answer expired, or queued by another API key)", schema: ZErrorBody },
  },
});

const ZIdempotencyKey = z.string().min(1).max(200);

function send(res: ServerResponse, a: TAnswer, extra: Record<string, string> = {}): void {
  res.writeHead(a.status, {
    "content-type": "application/json; charset=utf-8",
    "content-length": Buffer.byteLength(a.body),
    "cache-control": "no-store",
    ...a.headers,
    ...extra,
  });
  res.end(a.body);
}

/** Prepare, attempt, and settle the decision row: one JSON execution. */
export async function executeJson(
  ctx: TGatewayContext,
  operation: string,
  input: TExecuteRequest,
  requestId: string,
  key: string | null,
  lease: TIdempotencyLease | null,
  queueOwner: string | null,
  caller: string | null = queueOwner,
): Promise<TExecution> {
  const prep = await prepareExecution(ctx, operation, input, requestId, key, lease?.attempted ?? [], queueOwner, caller);
  if (!prep.ok) return { answer: prep.answer, definitive: false, retryAfterSeconds: prep.retryAfterSeconds };
  const exec = await runAttempts(ctx, prep.prepared, lease);
  return { ...exec, answer: await settleDecision(prep.prepared.decision, exec.answer) };
}

/**
 * Waits for the decision row like decide does (sync durability: committed), written with the rows
 * of the calls still running once this one has its answer, and says how it was made durable.
 */
async function settleDecision(decision: Pick<TLoggedDecision, "decisionId" | "written" | "demand">, a: TAnswer): Promise<TAnswer> {
  try {
    decision.demand();
    const w = await decision.written;
    if (w.status === "existing") {
      // The same requestId was decided within the window: the logged decision is the one outcomes attach to.
      return {
        ...a,
        body: a.body.split(decision.decisionId).join(w.existing.id),
        headers: { ...a.headers, "x-decision-durability": "replayed", "x-switchyard-decision-id": w.existing.id },
      };
    }
    return { ...a, headers: { ...a.headers, "x-decision-durability": w.status } };
  } catch {
    return { ...a, headers: { ...a.headers, "x-decision-durability": "failed" } };
  }
}

export function createExecuteHandler(ctx: TGatewayContext): TRouteHandler {
  return async (req: IncomingMessage, res: ServerResponse, params) => {
    const auth = await authenticateRequest(req, "decide");
    if (!auth.ok) {
      sendJson(res, auth.status, auth.body, auth.headers);
      return;
    }
    const operation = params.operation!;
    const refused = operationDenied(auth.principal, operation);
    if (refused && !refused.ok) {
      sendJson(res, refused.status, refused.body, refused.headers);
      return;
    }
    const raw = await readJsonBody(req, EXECUTE_MAX_BODY_BYTES);
    const parsed = ZExecuteRequest.safeParse(raw);
    if (!parsed.success) throw fromZod(parsed.error);
    const input = parsed.data;
    const header = req.headers["idempotency-key"];
    let key: string | null = null;
    if (header !== undefined) {
      const k = ZIdempotencyKey.safeParse(Array.isArray(header) ? header[0] : header);
      if (!k.success) throw malformed([{ path: "idempotency-key", message: "must be 1 to 200 characters" }], "Idempotency-Key must be 1 to 200 characters");
      key = k.data;
    }
    if (input.stream && key !== null) {
      const message = "Idempotency-Key cannot be combined with stream: true (a stream cannot be replayed); send requestId to correlate";
      throw invalid([{ path: "idempotency-key", message }], message);
    }
    key ??= input.stream ? null : (input.requestId ?? null);
    const requestId = input.requestId ?? key ?? newRequestId();

    if (input.stream) {
      const prep = await prepareExecution(ctx, operation, input, requestId, null, [], null, auth.principal.id);
      if (!prep.ok) {
        send(res, prep.answer);
        return;
      }
      const answer = await runStream(ctx, prep.prepared, res);
      if (answer) send(res, answer);
      return;
    }

    if (key === null) {
      send(res, (await executeJson(ctx, operation, input, requestId, null, null, auth.principal.id)).answer);
      return;
    }
    const limits = ctx.config().limits.get(operation) ?? DEFAULT_OPERATION_LIMITS;
    const leaseMs = Math.min(limits.deadlineMs, input.deadlineMs ?? Infinity) + 10_000;
    // The request as parsed (whitespace aside, as sent): a repeat under the key must send the same one.
    const fingerprint = hash("sha256", JSON.stringify(input), "base64url");
    // The key is the calling API key's own: another key's identical Idempotency-Key is another
    // request, here and at the provider (which sees every caller through one credential).
    const scopedKey = `${auth.principal.id}\u001f${key}`;
    const providerKey = `${hash("sha256", auth.principal.id, "base64url").slice(0, 12)}-${key}`;
    const { answer, replayed } = await ctx.idempotency.run(
      operation,
      scopedKey,
      fingerprint,
      limits.idempotencyWindowSeconds * 1000,
      leaseMs,
      async (lease) => {
        const r = await executeJson(ctx, operation, input, requestId, providerKey, lease, auth.principal.id);
        return { answer: r.answer, definitive: r.definitive };
      },
    );
    send(res, answer, replayed ? { "idempotent-replayed": "true" } : {});
  };
}

export function createJobHandler(ctx: TGatewayContext): TRouteHandler {
  return async (req, res, params) => {
    const auth = await authenticateRequest(req, "decide");
    if (!auth.ok) {
      sendJson(res, auth.status, auth.body, auth.headers);
      return;
    }
    // Only the key that queued a job reads its answer (the bootstrap key, holding every scope,
    // reads any); for another key the job does not exist.
    let view: Awaited<ReturnType<typeof ctx.jobs.get>>;
    try {
      view = await ctx.jobs.get(params.id!, auth.principal.kind === "environment_key" ? null : auth.principal.id);
    } catch {
      sendJson(res, 503, errorBody("database_unavailable", "the job queue is unreachable right now; poll again shortly"), { "retry-after": "2" });
      return;
    }
    if (!view) {
      const message = `no queued request "${params.id}" (answers are kept 5 minutes)`;
      sendJson(res, 404, errorBody("unknown_job", message, [{ path: "id", message }]));
      return;
    }
    if (view.status === "done") {
      sendJson(res, 200, { status: "done", httpStatus: view.answer.status, answer: JSON.parse(view.answer.body) as unknown });
      return;
    }
    sendJson(res, 200, view, view.status === "queued" ? { "retry-after": String(view.retryAfterSeconds) } : {});
  };
}
