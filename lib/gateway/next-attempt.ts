import { quotaOutcome } from "../../router-core/index";
import { noteRouted } from "../dataplane/metrics/counters";
import { fullJitterDelay } from "./backoff";
import type { TGatewayContext } from "./context";
import type { TPrepared } from "./prepare";
import type { RetryBudget } from "./retry-budget";
import type { TAttempt } from "./schema";

export type TStop = { code: string; message: string };

/**
 * Whether the execution may call `provider` after `called` attempts, shared by the JSON and the
 * streaming paths: within the operation's max attempts, not while the provider is throttled
 * (recorded as a skipped attempt), within the retry budget, and only if the full-jitter backoff
 * still ends before the deadline. Waits out the backoff when the answer is `go`.
 */
export async function nextAttempt(
  ctx: TGatewayContext,
  p: TPrepared,
  provider: string,
  called: number,
  budget: RetryBudget,
  attempts: TAttempt[],
): Promise<"go" | "skip" | TStop> {
  if (called === 0) return "go";
  if (called >= p.limits.maxAttempts) return { code: "attempts_exhausted", message: `${called} attempts failed; the operation allows ${p.limits.maxAttempts}` };
  // Throttled by a 429, or its call quota spent since the decision read it (by this or another instance).
  const quota = ctx.quotas.throttled(provider)
    ? { passed: false, detail: "throttled until its reset" }
    : quotaOutcome(ctx.state.snapshotFor(p.operation, p.region)?.quotas[provider], ctx.now());
  if (!quota.passed) {
    attempts.push({
      provider,
      errorClass: "rate_limit",
      outcomeErrorClass: null,
      httpStatus: null,
      latencyMs: 0,
      detail: `${quota.detail}; not called`,
      called: false,
    });
    return "skip";
  }
  if (!budget.tryRetry()) {
    return {
      code: "retry_budget_exhausted",
      message: `retry budget exhausted: retries are capped at ${Math.round(p.limits.retryBudgetRatio * 100)}% of requests (minimum ${p.limits.retryBudgetMinPerSecond}/s)`,
    };
  }
  const delay = fullJitterDelay(called - 1, ctx.backoff, ctx.random);
  if (ctx.now() + delay >= p.deadlineAt) return { code: "deadline_exceeded", message: "the execute deadline passed before the next attempt" };
  if (delay > 0) await new Promise((r) => setTimeout(r, delay));
  return "go";
}

/**
 * Called just before a provider call: one the decision did not route (a failover, the fallback's
 * probe) spends the provider's call quota and takes a half-open breaker's probe slot, as a routed
 * decision does, so execute's extra calls count against what the cluster admits.
 */
export function noteCall(p: TPrepared, provider: string): void {
  if (provider !== p.decision.record.selected) noteRouted(p.operation, p.region, provider);
}
