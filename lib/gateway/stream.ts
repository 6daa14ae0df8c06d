import { errorBody } from "../http/error-contract";
import type { IncomingMessage, ServerResponse } from "node:http";
import { classifyStatus, classifyTransportError, malformedBody, parseRateLimit } from "./classify";
import { buildUpstream, NotCalledError, redact } from "./call-provider";
import { jsonAnswer, type TAnswer, type TGatewayContext } from "./context";
import { nextAttempt } from "./next-attempt";
import { costOf, decisionLogRefused, report } from "./execute";
import type { TProviderCallOutcome } from "../dataplane/telemetry/schemas";
import { parseJsonBody } from "./adapters/json-body";
import type { TPrepared } from "./prepare";
import type { TAttempt } from "./schema";
import { createSseParser, sseEvent } from "./sse";
import { openUpstreamStream, readAll } from "./upstream";
import { AttemptError, type TStreamEnd } from "./types";

const SSE_HEADERS = { "content-type": "text/event-stream; charset=utf-8", "cache-control": "no-store", connection: "keep-alive", "x-accel-buffering": "no" } as const;

/** Reads a response chunk by chunk; rejects on a reset, an abort or `idleMs` without data. */
function pump(res: IncomingMessage, idleMs: () => number, onChunk: (s: string) => void): Promise<void> {
  return new Promise((resolve, reject) => {
    let timer: NodeJS.Timeout | null = null;
    let done = false;
    const finish = (err: unknown) => {
      if (done) return;
      done = true;
      if (timer) clearTimeout(timer);
      if (err) reject(err);
      else resolve();
    };
    const arm = () => {
      if (timer) clearTimeout(timer);
      timer = setTimeout(() => {
        res.destroy();
        finish(classifyTransportError(new Error("stream idle"), true));
      }, Math.max(1, idleMs()));
    };
    arm();
    res.setEncoding("utf8");
    res.on("data", (chunk: string) => {
      if (done) return;
      arm();
      try {
        onChunk(chunk);
      } catch (err) {
        res.destroy();
        finish(err);
      }
    });
    res.on("end", () => finish(null));
    res.on("aborted", () => finish(classifyTransportError(Object.assign(new Error("stream aborted"), { code: "ECONNRESET" }), false)));
    res.on("error", (err) => finish(classifyTransportError(err, false)));
    res.on("close", () => finish(res.complete ? null : classifyTransportError(Object.assign(new Error("stream closed"), { code: "ECONNRESET" }), false)));
  });
}

/**
 * Streaming execution (SSE). Until the first piece of output reaches the client the attempt may
 * still fail over like a JSON one (seeds/001 pitfall 4: fail over before the first byte); after
 * it, a failure ends the stream with an explicit `event: error`, since the caller already holds
 * part of one provider's answer. Events: `start` {decisionId, provider, attempts}, `delta`
 * {text}, then `done` {finishReason, usage, attempts, ttfbMs, costEstimate} or `error`.
 * Returns null once it answered on `res`, or a JSON answer when nothing was streamed.
 */
export async function runStream(ctx: TGatewayContext, p: TPrepared, res: ServerResponse): Promise<TAnswer | null> {
  const budget = ctx.retryBudget(p.operation, p.limits);
  budget.request();
  const attempts: TAttempt[] = [];
  const reports: TProviderCallOutcome[] = [];
  const decisionId = p.decision.decisionId;
  let called = 0;
  let stop: { code: string; message: string } | null = null;
  let clientGone = false;
  let abortUpstream: (() => void) | null = null;
  // A caller that hangs up mid-stream must not keep the provider generating (and billing) for nobody.
  res.on("close", () => {
    if (res.writableFinished) return;
    clientGone = true;
    abortUpstream?.();
  });
  res.on("error", () => {});

  for (const provider of p.order) {
    if (clientGone) break;
    const gate = await nextAttempt(ctx, p, provider, called, budget, attempts);
    if (gate === "skip") continue;
    if (gate !== "go") {
      stop = gate;
      break;
    }
    const cfg = p.adapters.get(provider);
    if (!cfg || !cfg.adapter.streamDecoder) continue;
    const remaining = p.deadlineAt - ctx.now();
    if (remaining <= 0) {
      stop = { code: "deadline_exceeded", message: "the execute deadline passed" };
      break;
    }
    let built: ReturnType<typeof buildUpstream>;
    try {
      built = buildUpstream(cfg, p.request, ctx.env, true);
    } catch (err) {
      if (!(err instanceof NotCalledError)) throw err;
      attempts.push({ provider, errorClass: "transient", outcomeErrorClass: null, httpStatus: null, latencyMs: 0, detail: err.message, called: false });
      continue;
    }
    // The first await since the decision: a refusal by the decision log is known by now.
    await null;
    const refused = p.decision.refused();
    if (refused) return decisionLogRefused(p, refused);
    const t0 = performance.now();
    const elapsed = () => Math.round((performance.now() - t0) * 100) / 100;
    let started = false;
    let ttfbMs: number | null = null;
    let sawEnd = false;
    let upstreamStatus = 0;
    try {
      const open = await openUpstreamStream(built.up, Math.min(cfg.timeoutMs, remaining));
      abortUpstream = open.abort;
      if (clientGone) open.abort();
      upstreamStatus = open.status;
      const hint = parseRateLimit(open.headers, ctx.now());
      if (open.status < 200 || open.status >= 300) {
        const raw = await readAll(open.response).catch(() => Buffer.alloc(0));
        let body: unknown;
        try {
          body = parseJsonBody(raw, open.status);
        } catch {
          body = raw.toString("utf8").slice(0, 4096);
        }
        throw classifyStatus(open.status, open.headers, redact(body, built.credential), ctx.now());
      }
      if (hint) ctx.quotas.observe(provider, hint);
      const decoder = cfg.adapter.streamDecoder();
      const parser = createSseParser((name, data) => {
        if (sawEnd) return;
        let piece: ReturnType<typeof decoder.event>;
        try {
          piece = decoder.event(name, data);
        } catch (err) {
          throw malformedBody((err as Error).message, open.status);
        }
        if (piece === "end") {
          sawEnd = true;
          return;
        }
        if (piece === null || clientGone) return;
        if (!started) {
          started = true;
          ttfbMs = elapsed();
          res.writeHead(200, { ...SSE_HEADERS, "x-switchyard-decision-id": decisionId, "x-switchyard-provider": provider });
          res.write(sseEvent("start", { decisionId, provider, attempts }));
        }
        res.write(sseEvent("delta", { text: redact(piece.text, built.credential) }));
      });
      // Before the first output the budget is the deadline; after it, the adapter's timeout between chunks.
      await pump(open.response, () => (started ? cfg.timeoutMs : Math.min(cfg.timeoutMs, p.deadlineAt - ctx.now())), (chunk) => parser.push(chunk));
      parser.end();
      const end: TStreamEnd = decoder.end();
      if (!sawEnd && end.finishReason === null) throw new AttemptError("transient", "network", "the stream ended before the provider finished its answer", open.status);
      const latencyMs = elapsed();
      if (!started) {
        // A complete answer with no text at all: still a stream, opened now.
        started = true;
        ttfbMs = latencyMs;
        res.writeHead(200, { ...SSE_HEADERS, "x-switchyard-decision-id": decisionId, "x-switchyard-provider": provider });
        res.write(sseEvent("start", { decisionId, provider, attempts }));
      }
      attempts.push({ provider, errorClass: null, outcomeErrorClass: null, httpStatus: open.status, latencyMs, ttfbMs: ttfbMs ?? latencyMs, called: true });
      reports.push({ type: "provider_call", decisionId, provider, status: "success", httpStatus: open.status, latencyMs, retryCount: called, ttfbMs: ttfbMs ?? latencyMs });
      const cost = costOf(ctx, cfg, end.usage);
      if (cost !== null) ctx.budget.charge(p.operation, cost);
      ctx.budget.served(p.operation, provider === (p.active.policy.providers[0] ?? provider));
      res.end(sseEvent("done", { decisionId, provider, finishReason: end.finishReason, usage: end.usage ?? null, model: end.model ?? cfg.model, attempts, ttfbMs, costEstimate: cost }));
      report(ctx, p, reports);
      return null;
    } catch (raw) {
      if (clientGone) {
        // The caller left; the provider is not to blame for the cut.
        report(ctx, p, reports);
        return null;
      }
      const err = raw instanceof AttemptError ? raw : classifyTransportError(raw, false);
      const latencyMs = elapsed();
      called++;
      attempts.push({ provider, errorClass: err.errorClass, outcomeErrorClass: err.outcomeClass, httpStatus: err.status ?? (upstreamStatus || null), latencyMs, ...(ttfbMs !== null ? { ttfbMs } : {}), detail: err.message, called: true });
      reports.push({
        type: "provider_call",
        decisionId,
        provider,
        status: "failure",
        errorClass: err.outcomeClass,
        ...(err.status !== null ? { httpStatus: err.status } : {}),
        latencyMs,
        retryCount: called - 1,
        ...(ttfbMs !== null ? { ttfbMs } : {}),
      });
      if (err.errorClass === "rate_limit") ctx.quotas.observe(provider, err.rateLimit ?? { retryAfterSeconds: null, exhausted: true });
      if (started) {
        res.end(sseEvent("error", { code: "stream_interrupted", message: `${provider}'s stream failed after output began (${err.message}); the answer is incomplete`, decisionId, provider, attempts }));
        report(ctx, p, reports);
        return null;
      }
      if (err.errorClass === "permanent") {
        report(ctx, p, reports);
        return jsonAnswer(
          err.status ?? 502,
          { ...errorBody("provider_rejected", `${provider} refused the request (${err.message}); not retried on another provider`), decisionId, provider, providerStatus: err.status, providerBody: err.providerBody ?? null, attempts },
          { "x-switchyard-decision-id": decisionId },
        );
      }
    }
  }
  report(ctx, p, reports);
  if (!stop) stop = called === 0 ? { code: "no_callable_provider", message: "no eligible provider could be called (see attempts)" } : { code: "all_attempts_failed", message: `every eligible provider failed (${called} attempts)` };
  return jsonAnswer(stop.code === "deadline_exceeded" ? 504 : 503, { ...errorBody(stop.code, stop.message), decisionId, attempts }, { "retry-after": "1", "x-switchyard-decision-id": decisionId });
}
