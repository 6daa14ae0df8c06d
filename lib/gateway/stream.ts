import { errorBody } from "../http";
import type { TStop } from "./next-attempt";
import type { IncomingMessage, ServerResponse } from "node:http";
import { classifyStatus, classifyTransportError, malformedBody, parseRateLimit } from "./classify";
import { buildUpstream, NotCalledError, redact } from "./call-provider";
import { jsonAnswer, type TAnswer } from "./answer";
import type { TProviderAdapterConfig } from "./config";
import type { TGatewayContext } from "./context";
import { claimCall, nextAttempt } from "./next-attempt";
import { chargeCall, decisionLogRefused, report } from "./execute";
import type { TExecutedCall } from "../dataplane";
import { parseJsonBody } from "./adapters/json-body";
import type { TPrepared } from "./prepare";
import type { TAttempt } from "./schema";
import { createSseParser, sseEvent } from "./sse";
import { openUpstreamStream, readAll, type TUpstreamStream } from "./upstream";
import { wrongContentType } from "./protocol-check";
import { AttemptError, type TStreamEnd } from "./types";

const SSE_HEADERS = {
  "content-type": "text/event-stream; charset=utf-8",
  "cache-control": "no-store",
  connection: "keep-alive",
  "x-accel-buffering": "no",
} as const;

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
      timer = setTimeout(
        () => {
          res.destroy();
          finish(classifyTransportError(new Error("stream idle"), true));
        },
        Math.max(1, idleMs()),
      );
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
 * still fail over like a JSON one (the LLM-routing article (docs/references.md) pitfall 4: fail over before the first byte); after
 * it, a failure ends the stream with an explicit `event: error`, since the caller already holds
 * part of one provider's answer. Events: `start` {decisionId, provider, attempts}, `delta`
 * {text}, then `done` {finishReason, usage, attempts, ttfbMs, costEstimate} or `error`.
 * Returns null once it answered on `res`, or a JSON answer when nothing was streamed.
 */
export async function runStream(ctx: TGatewayContext, p: TPrepared, res: ServerResponse): Promise<TAnswer | null> {
  const budget = ctx.retryBudget(p.operation, p.limits);
  budget.request();
  const run: TStreamRun = { ctx, p, res, decisionId: p.decision.decisionId, attempts: [], reports: [], called: 0, clientGone: false, abortUpstream: null };
  let stop: TStop | null = null;
  // A caller that hangs up mid-stream must not keep the provider generating (and billing) for nobody.
  res.on("close", () => {
    if (res.writableFinished) return;
    run.clientGone = true;
    run.abortUpstream?.();
  });
  res.on("error", () => {});

  for (const provider of p.order) {
    if (run.clientGone) break;
    const gate = await nextAttempt(ctx, p, provider, run.called, budget, run.attempts);
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
    let built: TBuilt;
    try {
      built = buildUpstream(cfg, p.request, ctx.env, true);
    } catch (err) {
      if (!(err instanceof NotCalledError)) throw err;
      run.attempts.push({ provider, errorClass: "transient", outcomeErrorClass: null, httpStatus: null, latencyMs: 0, detail: err.message, called: false });
      continue;
    }
    // The first await since the decision: a refusal by the decision log is known by now.
    await null;
    const refused = p.decision.refused();
    if (refused) return decisionLogRefused(p, refused);
    if (!claimCall(ctx, p, provider, run.attempts)) continue;
    const answer = await streamAttempt(run, provider, cfg, built, remaining);
    if (answer !== NEXT_PROVIDER) return answer;
  }
  report(ctx, p, run.reports);
  const { decisionId, attempts, called } = run;
  if (!stop)
    stop =
      called === 0
        ? { code: "no_callable_provider", message: "no eligible provider could be called (see attempts)" }
        : { code: "all_attempts_failed", message: `every eligible provider failed (${called} attempts)` };
  return jsonAnswer(
    stop.code === "deadline_exceeded" ? 504 : 503,
    { ...errorBody(stop.code, stop.message), decisionId, attempts },
    { "retry-after": "1", "x-switchyard-decision-id": decisionId },
  );
}

/** One streamed execution's state across its attempts. */
type TStreamRun = {
  ctx: TGatewayContext;
  p: TPrepared;
  res: ServerResponse;
  decisionId: string;
  attempts: TAttempt[];
  reports: TExecutedCall[];
  /** Providers called so far. */
  called: number;
  clientGone: boolean;
  abortUpstream: (() => void) | null;
};

/** One attempt's progress: whether output began, and when. */
type TAttemptProgress = { t0: number; started: boolean; ttfbMs: number | null; sawEnd: boolean; upstreamStatus: number };

type TBuilt = ReturnType<typeof buildUpstream>;

/** streamAttempt's answer when the attempt failed before any output and the next provider may be tried. */
const NEXT_PROVIDER = Symbol("next provider");

function elapsed(a: TAttemptProgress): number {
  return Math.round((performance.now() - a.t0) * 100) / 100;
}

/** Sends the stream's head and `start` event: the moment output begins. */
function startOutput(run: TStreamRun, a: TAttemptProgress, provider: string, ttfbMs: number): void {
  a.started = true;
  a.ttfbMs = ttfbMs;
  run.res.writeHead(200, { ...SSE_HEADERS, "x-switchyard-decision-id": run.decisionId, "x-switchyard-provider": provider });
  run.res.write(sseEvent("start", { decisionId: run.decisionId, provider, attempts: run.attempts }));
}

/**
 * One provider's streamed attempt. Returns null once it answered on `res`, a JSON answer to
 * send, or NEXT_PROVIDER when it failed before output and another provider may be tried.
 */
async function streamAttempt(
  run: TStreamRun,
  provider: string,
  cfg: TProviderAdapterConfig,
  built: TBuilt,
  remaining: number,
): Promise<TAnswer | null | typeof NEXT_PROVIDER> {
  const { ctx, p } = run;
  const a: TAttemptProgress = { t0: performance.now(), started: false, ttfbMs: null, sawEnd: false, upstreamStatus: 0 };
  try {
    const open = await openUpstreamStream(built.up, Math.min(cfg.timeoutMs, remaining));
    run.abortUpstream = open.abort;
    if (run.clientGone) open.abort();
    a.upstreamStatus = open.status;
    const hint = parseRateLimit(open.headers, ctx.now());
    if (open.status < 200 || open.status >= 300) throw await rejectedStatus(ctx, open, built);
    if (hint) ctx.quotas.observe(provider, hint);
    const wrong = wrongContentType(open.headers, "sse", open.status);
    if (wrong) {
      open.abort();
      throw wrong;
    }
    const end = await relayStream(run, a, provider, cfg, built, open);
    const latencyMs = elapsed(a);
    // A complete answer with no text at all: still a stream, opened now.
    if (!a.started) startOutput(run, a, provider, latencyMs);
    const { decisionId, attempts } = run;
    attempts.push({ provider, errorClass: null, outcomeErrorClass: null, httpStatus: open.status, latencyMs, ttfbMs: a.ttfbMs ?? latencyMs, called: true });
    run.reports.push({
      type: "provider_call",
      decisionId,
      provider,
      status: "success",
      httpStatus: open.status,
      latencyMs,
      retryCount: run.called,
      ttfbMs: a.ttfbMs ?? latencyMs,
    });
    const cost = chargeCall(ctx, p, provider, cfg, end.usage);
    run.res.end(
      sseEvent("done", {
        decisionId,
        provider,
        finishReason: end.finishReason,
        usage: end.usage ?? null,
        model: end.model ?? cfg.model,
        attempts,
        ttfbMs: a.ttfbMs,
        costEstimate: cost,
      }),
    );
    report(ctx, p, run.reports);
    return null;
  } catch (raw) {
    return attemptFailed(run, a, provider, raw);
  }
}

/** The provider's non-2xx answer, read and classified, as the error to throw. */
async function rejectedStatus(ctx: TGatewayContext, open: TUpstreamStream, built: TBuilt): Promise<AttemptError> {
  const raw = await readAll(open.response).catch(() => Buffer.alloc(0));
  let body: unknown;
  try {
    body = parseJsonBody(raw, open.status);
  } catch {
    body = raw.toString("utf8").slice(0, 4096);
  }
  return classifyStatus(open.status, open.headers, redact(body, built.credential), ctx.now());
}

/** Decodes the provider's SSE and relays each piece of text as a `delta`; returns the stream's end. */
async function relayStream(
  run: TStreamRun,
  a: TAttemptProgress,
  provider: string,
  cfg: TProviderAdapterConfig,
  built: TBuilt,
  open: TUpstreamStream,
): Promise<TStreamEnd> {
  const { ctx, p, res } = run;
  const decoder = cfg.adapter.streamDecoder!();
  const parser = createSseParser((name, data) => {
    if (a.sawEnd) return;
    let piece: ReturnType<typeof decoder.event>;
    try {
      piece = decoder.event(name, data);
    } catch (err) {
      throw malformedBody((err as Error).message, open.status);
    }
    if (piece === "end") {
      a.sawEnd = true;
      return;
    }
    if (piece === null || run.clientGone) return;
    if (!a.started) startOutput(run, a, provider, elapsed(a));
    res.write(sseEvent("delta", { text: redact(piece.text, built.credential) }));
  });
  // Before the first output the budget is the deadline; after it, the adapter's timeout between chunks.
  await pump(
    open.response,
    () => (a.started ? cfg.timeoutMs : Math.min(cfg.timeoutMs, p.deadlineAt - ctx.now())),
    (chunk) => parser.push(chunk),
  );
  parser.end();
  const end: TStreamEnd = decoder.end();
  if (!a.sawEnd && end.finishReason === null)
    throw new AttemptError("transient", "network", "the stream ended before the provider finished its answer", open.status);
  return end;
}

/** Records a failed attempt; ends the stream if output began, answers a permanent refusal, else NEXT_PROVIDER. */
function attemptFailed(run: TStreamRun, a: TAttemptProgress, provider: string, raw: unknown): TAnswer | null | typeof NEXT_PROVIDER {
  const { ctx, p, res, decisionId, attempts, reports } = run;
  if (run.clientGone) {
    // The caller left; the provider is not to blame for the cut.
    report(ctx, p, reports);
    return null;
  }
  const err = raw instanceof AttemptError ? raw : classifyTransportError(raw, false);
  if (err.logDetail) ctx.log(`gateway: ${provider} failed for decision ${decisionId}: ${err.logDetail}`);
  const latencyMs = elapsed(a);
  const ttfbMs = a.ttfbMs;
  run.called++;
  attempts.push({
    provider,
    errorClass: err.errorClass,
    outcomeErrorClass: err.outcomeClass,
    httpStatus: err.status ?? (a.upstreamStatus || null),
    latencyMs,
    ...(ttfbMs !== null ? { ttfbMs } : {}),
    detail: err.message,
    called: true,
  });
  reports.push({
    type: "provider_call",
    decisionId,
    provider,
    status: "failure",
    errorClass: err.outcomeClass,
    ...(err.status !== null ? { httpStatus: err.status } : {}),
    latencyMs,
    retryCount: run.called - 1,
    ...(ttfbMs !== null ? { ttfbMs } : {}),
    ...(err.logDetail ? { detail: err.logDetail } : {}),
  });
  if (err.errorClass === "rate_limit") ctx.quotas.observe(provider, err.rateLimit ?? { retryAfterSeconds: null, exhausted: true });
  if (a.started) {
    res.end(
      sseEvent("error", {
        code: "stream_interrupted",
        message: `${provider}'s stream failed after output began (${err.message}); the answer is incomplete`,
        decisionId,
        provider,
        attempts,
      }),
    );
    report(ctx, p, reports);
    return null;
  }
  if (err.errorClass === "permanent") {
    report(ctx, p, reports);
    return jsonAnswer(
      err.status ?? 502,
      {
        ...errorBody("provider_rejected", `${provider} refused the request (${err.message}); not retried on another provider`),
        decisionId,
        provider,
        providerStatus: err.status,
        providerBody: err.providerBody ?? null,
        attempts,
      },
      { "x-switchyard-decision-id": decisionId },
    );
  }
  return NEXT_PROVIDER;
}
