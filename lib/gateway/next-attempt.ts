import { quotaOutcome } from "../../router-core/index";
import type { TErrorCode } from "../http";
import { noteRouted } from "../dataplane";
import { fullJitterDelay } from "./backoff";
import type { TGatewayContext } from "./context";
import type { TPrepared } from "./prepare";
import type { RetryBudget } from "./retry-budget";
import type { TAttempt } from "./schema";

export type TStop = { code: TErrorCode; message: string };

/**
 * Whether the execution may call `provider` after `called` attempts, shared by the JSON and the
 * streaming paths: within the operation's max attempts, not while the provider is throttled
 * (recorded as a skipped attempt; the selected provider too, whatever the gates), within the retry budget, and only if the full-jitter backoff
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
  if (called === 0) {
    // A provider under a provider-announced throttle (429 + Retry-After, remaining 0) is skipped
    // whatever the factor list's gates say: the decision may select it when quota_available is
    // not a gate, but calling it is known to fail and spends the provider's patience.
    if (!ctx.quotas.throttled(provider)) return "go";
    attempts.push(skipped(provider, "throttled until its reset"));
    return "skip";
  }
  if (called >= p.limits.maxAttempts) return { code: "attempts_exhausted", message: `${called} attempts failed; the operation allows ${p.limits.maxAttempts}` };
  // Skipped before spending retry budget or backoff on it; claimCall asks again right before the call.
  const why = refusal(ctx, p, provider);
  if (why !== null) {
    attempts.push(skipped(provider, why));
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

/** Why `provider` may not be called now: a 429 throttle, or its call quota spent since the decision read it (by this or another instance). */
function refusal(ctx: TGatewayContext, p: TPrepared, provider: string): string | null {
  if (ctx.quotas.throttled(provider)) return "throttled until its reset";
  const quota = quotaOutcome(ctx.state.snapshotFor(p.operation, p.region)?.quotas[provider], ctx.now());
  return quota.passed ? null : quota.detail;
}

function skipped(provider: string, why: string): TAttempt {
  return { provider, errorClass: "rate_limit", outcomeErrorClass: null, httpStatus: null, latencyMs: 0, detail: `${why}; not called`, called: false };
}

/**
 * Called right before a provider call. One the decision did not route (a failover, the fallback's
 * probe) is checked against throttles and the call quota and spends a call of it (and takes a
 * half-open breaker's probe slot) in the same synchronous step, as a routed decision does, so
 * failovers running at once cannot all pass on the quota's last call. False: skipped, recorded.
 */
export function claimCall(ctx: TGatewayContext, p: TPrepared, provider: string, attempts: TAttempt[]): boolean {
  if (provider === p.decision.record.selected) return true;
  const why = refusal(ctx, p, provider);
  if (why !== null) {
    attempts.push(skipped(provider, why));
    return false;
  }
  noteRouted(p.operation, p.region, provider);
  return true;
}
