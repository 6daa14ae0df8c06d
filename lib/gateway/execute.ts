import { errorBody } from "../http";
import type { TStop } from "./next-attempt";
import type { DecisionLogBusyError, TExecutedCall } from "../dataplane";
import { TemplateInputError } from "./adapters/template";
import { AttemptError, callProvider, NotCalledError } from "./call-provider";
import type { TProviderAdapterConfig } from "./config";
import { jsonAnswer, type TAnswer } from "./answer";
import type { TGatewayContext } from "./context";
import { claimCall, nextAttempt } from "./next-attempt";
import type { TIdempotencyLease } from "./idempotency";
import type { TPrepared } from "./prepare";
import type { TAttempt } from "./schema";
import type { TUsage } from "./types";

/** What the caller gets and whether it may be replayed for the same idempotency key. */
export type TExecution = { answer: TAnswer; definitive: boolean; retryAfterSeconds: number | null };

/** The cost of one successful call: token prices for LLM adapters with usage, else the catalogue's cost per request. */
export function costOf(ctx: TGatewayContext, cfg: TProviderAdapterConfig, usage: TUsage | undefined): number | null {
  if (usage && (cfg.inputPricePer1k !== null || cfg.outputPricePer1k !== null)) {
    return (usage.inputTokens * (cfg.inputPricePer1k ?? 0) + usage.outputTokens * (cfg.outputPricePer1k ?? 0)) / 1000;
  }
  const info = ctx.state.providers().find((p) => p.key === cfg.provider);
  return info ? info.costPerRequest : null;
}

/** A successful call: its cost charged to the operation's budget, its tokens spent from the provider's token quotas. */
export function chargeCall(ctx: TGatewayContext, p: TPrepared, provider: string, cfg: TProviderAdapterConfig, usage: TUsage | undefined): number | null {
  const cost = costOf(ctx, cfg, usage);
  if (cost !== null) ctx.budget.charge(p.operation, cost);
  ctx.budget.served(p.operation, provider === (p.active.policy.providers[0] ?? provider));
  if (usage) ctx.spendTokens(provider, usage.inputTokens + usage.outputTokens);
  return cost;
}

/**
 * The attempts of an execution: the selected provider, then on a transient failure or a
 * rate limit the next eligible provider by score, while the total deadline, the operation's
 * max attempts and the retry budget allow, with full-jitter backoff between attempts. A
 * permanent failure (4xx) is returned at once with the provider's status. A provider is never
 * called twice in one execution: a repeat could execute the request twice (the token-gateway article (docs/references.md)).
 */
export async function runAttempts(ctx: TGatewayContext, p: TPrepared, lease: TIdempotencyLease | null): Promise<TExecution> {
  const budget = ctx.retryBudget(p.operation, p.limits);
  budget.request();
  const attempts: TAttempt[] = [];
  const reports: TExecutedCall[] = [];
  const decisionId = p.decision.decisionId;
  let called = 0;
  let stop: TStop | null = null;
  let lastRetryAfter: number | null = null;

  for (const provider of p.order) {
    const gate = await nextAttempt(ctx, p, provider, called, budget, attempts);
    if (gate === "skip") continue;
    if (gate !== "go") {
      stop = gate;
      break;
    }
    const remaining = p.deadlineAt - ctx.now();
    if (remaining <= 0) {
      stop = { code: "deadline_exceeded", message: "the execute deadline passed" };
      break;
    }
    const cfg = p.adapters.get(provider);
    if (!cfg) continue;
    await lease?.markAttempt(provider);
    const refused = p.decision.refused();
    if (refused) {
      await lease?.unmarkAttempt(provider);
      return { answer: decisionLogRefused(p, refused), definitive: false, retryAfterSeconds: refused.retryAfterSeconds };
    }
    if (!claimCall(ctx, p, provider, attempts)) {
      await lease?.unmarkAttempt(provider);
      continue;
    }
    const t0 = performance.now();
    try {
      const { result, rateLimit } = await callProvider(cfg, p.request, Math.min(cfg.timeoutMs, remaining), ctx.env, ctx.now);
      const latencyMs = round(performance.now() - t0);
      if (rateLimit) ctx.quotas.observe(provider, rateLimit);
      attempts.push({ provider, errorClass: null, outcomeErrorClass: null, httpStatus: result.status, latencyMs, called: true });
      reports.push({ type: "provider_call", decisionId, provider, status: "success", httpStatus: result.status, latencyMs, retryCount: called });
      const cost = chargeCall(ctx, p, provider, cfg, result.usage);
      report(ctx, p, reports);
      const body = { decisionId, provider, result, attempts, costEstimate: cost };
      if (p.limits.cacheTtlSeconds !== null) ctx.cache.put(p.operation, p.input.input, { provider, result, costEstimate: cost });
      return { answer: jsonAnswer(200, body, durabilityHeader(p)), definitive: true, retryAfterSeconds: null };
    } catch (err) {
      const latencyMs = round(performance.now() - t0);
      if (err instanceof TemplateInputError) {
        await lease?.unmarkAttempt(provider);
        report(ctx, p, reports);
        const body = errorBody("invalid_input", err.message, [{ path: err.path, message: err.message }]);
        return { answer: jsonAnswer(422, { ...body, decisionId, attempts }), definitive: true, retryAfterSeconds: null };
      }
      if (err instanceof NotCalledError) {
        await lease?.unmarkAttempt(provider);
        attempts.push({ provider, errorClass: "transient", outcomeErrorClass: null, httpStatus: null, latencyMs, detail: err.message, called: false });
        ctx.log(`gateway: ${provider} skipped: ${err.message}`);
        continue;
      }
      if (!(err instanceof AttemptError)) throw err;
      // The caller's attempt list says only that the connection failed; the cause is for the log and the drilldown.
      if (err.logDetail) ctx.log(`gateway: ${provider} failed for decision ${decisionId}: ${err.logDetail}`);
      called++;
      attempts.push({
        provider,
        errorClass: err.errorClass,
        outcomeErrorClass: err.outcomeClass,
        httpStatus: err.status,
        latencyMs,
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
        retryCount: called - 1,
        ...(err.logDetail ? { detail: err.logDetail } : {}),
      });
      if (err.errorClass === "rate_limit") {
        ctx.quotas.observe(provider, err.rateLimit ?? { retryAfterSeconds: null, exhausted: true });
        if (err.rateLimit?.retryAfterSeconds != null) lastRetryAfter = Math.max(lastRetryAfter ?? 0, err.rateLimit.retryAfterSeconds);
        // A 429 means the provider refused before doing the work: calling it again later is safe.
        await lease?.unmarkAttempt(provider);
      }
      if (err.errorClass === "permanent") {
        report(ctx, p, reports);
        return providerRejected(p, provider, err, attempts);
      }
    }
  }
  report(ctx, p, reports);
  return exhausted(p, stop, called, lastRetryAfter, attempts);
}

/** A permanent failure (4xx): returned at once with the provider's status, not tried elsewhere. */
function providerRejected(p: TPrepared, provider: string, err: AttemptError, attempts: TAttempt[]): TExecution {
  const body = {
    ...errorBody("provider_rejected", `${provider} refused the request (${err.message}); not retried on another provider`),
    decisionId: p.decision.decisionId,
    provider,
    providerStatus: err.status,
    providerBody: err.providerBody ?? null,
    attempts,
  };
  return { answer: jsonAnswer(err.status ?? 502, body, durabilityHeader(p)), definitive: true, retryAfterSeconds: null };
}

/** No provider answered: 504 past the deadline, else 503, with when to try again. */
function exhausted(p: TPrepared, stop: TStop | null, called: number, lastRetryAfter: number | null, attempts: TAttempt[]): TExecution {
  const why =
    stop ??
    (called === 0
      ? { code: "no_callable_provider", message: "no eligible provider could be called (see attempts)" }
      : { code: "all_attempts_failed", message: `every eligible provider failed (${called} attempts)` });
  const retryAfter = Math.max(1, Math.ceil(lastRetryAfter ?? 1));
  const status = why.code === "deadline_exceeded" ? 504 : 503;
  return {
    answer: jsonAnswer(
      status,
      { ...errorBody(why.code, why.message), decisionId: p.decision.decisionId, attempts },
      { "retry-after": String(retryAfter), ...durabilityHeader(p) },
    ),
    definitive: false,
    retryAfterSeconds: retryAfter,
  };
}

/** Like decide's 503 when the decision log cannot take the row: nothing was called. */
export function decisionLogRefused(p: TPrepared, err: DecisionLogBusyError): TAnswer {
  return jsonAnswer(
    503,
    { ...errorBody("decision_log_unavailable", `${err.message}; no provider was called`), decisionId: p.decision.decisionId },
    { "retry-after": String(err.retryAfterSeconds) },
  );
}

function durabilityHeader(p: TPrepared): Record<string, string> {
  return { "x-switchyard-decision-id": p.decision.decisionId };
}

function round(ms: number): number {
  return Math.round(ms * 100) / 100;
}

/**
 * Outcomes go through POST /outcomes' ingestion (validation, group-commit writer, spool, metrics,
 * breakers) once the decision row is durable, off the response path: metrics, breakers and the
 * controller see every attempt without the caller waiting for the write.
 */
export function report(ctx: TGatewayContext, p: TPrepared, reports: TExecutedCall[]): void {
  if (reports.length === 0) return;
  ctx.track(
    (async () => {
      let decisionId = p.decision.decisionId;
      try {
        const w = await p.decision.written;
        if (w.status === "existing") decisionId = w.existing.id;
      } catch (err) {
        ctx.log(`gateway: decision ${decisionId} was not logged (${(err as Error).message}); its ${reports.length} outcomes are not recorded`);
        return;
      }
      const items = decisionId === p.decision.decisionId ? reports : reports.map((r) => ({ ...r, decisionId }));
      const record = p.decision.record;
      const ref = { operation: record.operation, region: record.region, selected: record.selected };
      const results = await ctx.outcomes.record(items, decisionId, ref, p.decision.apiKeyId);
      const rejected = results.filter((x) => x.status >= 400);
      if (rejected.length > 0) ctx.log(`gateway: ${rejected.length} outcomes of ${decisionId} rejected: ${rejected[0]!.error?.message ?? ""}`);
    })().catch((err: unknown) => ctx.log(`gateway: recording outcomes failed: ${(err as Error).message}`)),
  );
}
