import { FALLBACK_POLICIES, FALLBACK_POLICY_NAMES, type TFallbackAction, type TFallbackPolicyName } from "../policy/names";
import type { TBreakerView, TQuotaView } from "../types";
import { checkNumber, checkTime, open } from "./options";

/**
 * What a decision answers when every provider failed a hard gate (the paper's section 4.11 (docs/references.md), Table 7): never a
 * forced pick. The `use_secondary_then_*` policies reach this point only after ordinary
 * selection found no eligible secondary either, so they reduce to their terminal action.
 *
 * The retry-after is the earliest moment some provider is expected back: the later of its
 * breaker's next attempt and its quota reset. A provider excluded by a gate with no known end
 * (region, compliance, credentials, kill) never counts as expected back.
 */

export type TFallbackCandidate = {
  provider: string;
  breaker?: TBreakerView;
  quota?: TQuotaView;
  /** Gates the provider failed; names from the factor list's gate vocabulary. */
  failedGates?: readonly string[];
};

export type TFallbackContext = {
  now: number;
  candidates: readonly TFallbackCandidate[];
  /** Used when no provider has a known return time. */
  defaultRetryAfterSeconds?: number;
};

export type TFallbackDecision = {
  action: TFallbackAction;
  retryAfterSeconds?: number;
  /** probe_only: the half-open provider that may take this request as a probe. */
  provider?: string;
  detail: string;
};

const DEFAULT_RETRY_AFTER_SECONDS = 30;
/** Gates whose failure ends by itself; any other failed gate needs a person to change something. */
const TRANSIENT_GATES: ReadonlySet<string> = new Set(["circuit_breaker_closed", "quota_available", "metric_fresh_or_safe_default"]);

export function isFallbackPolicy(name: string): name is TFallbackPolicyName {
  return Object.hasOwn(FALLBACK_POLICIES, name);
}

export function resolveFallback(policy: string, context: TFallbackContext): TFallbackDecision {
  if (!isFallbackPolicy(policy)) {
    throw new RangeError(`fallback_policy must be one of ${FALLBACK_POLICY_NAMES.join(", ")}, got ${JSON.stringify(policy)}`);
  }
  const now = checkTime("now", context.now);
  const defaultRetry = checkNumber("defaultRetryAfterSeconds", context.defaultRetryAfterSeconds ?? DEFAULT_RETRY_AFTER_SECONDS, open(0), null);
  const back = earliestReturn(context.candidates, now);
  const retryAfterSeconds = back === null ? defaultRetry : Math.max(1, Math.ceil((back.at - now) / 1000));
  const expected = back === null ? "no provider has a known return time" : `${back.provider} expected back in ${retryAfterSeconds} s`;
  const action = FALLBACK_POLICIES[policy];

  switch (action) {
    case "queue":
      return { action, retryAfterSeconds, detail: `no eligible provider; queued (${policy}); ${expected}` };
    case "degraded_message":
      return { action, retryAfterSeconds, detail: `no eligible provider; capacity exhausted, please retry later; ${expected}` };
    case "escalate":
      return { action, retryAfterSeconds, detail: `no eligible provider; escalated for an operator pin or override; ${expected}` };
    case "probe_only": {
      const probe = context.candidates.find((c) => c.breaker?.state === "half_open" && c.breaker.probeAvailable && onlyBreakerBlocks(c));
      if (probe) return { action, provider: probe.provider, detail: `no eligible provider; probe call to half-open ${probe.provider}` };
      // No probe slot is free, and forcing one would defeat the breaker: hold the request instead.
      return { action: "queue", retryAfterSeconds, detail: `no eligible provider and no free probe slot; queued; ${expected}` };
    }
  }
}

function onlyBreakerBlocks(c: TFallbackCandidate): boolean {
  return (c.failedGates ?? []).every((g) => g === "circuit_breaker_closed");
}

function earliestReturn(candidates: readonly TFallbackCandidate[], now: number): { provider: string; at: number } | null {
  let best: { provider: string; at: number } | null = null;
  for (const c of candidates) {
    if ((c.failedGates ?? []).some((g) => !TRANSIENT_GATES.has(g))) continue;
    let at = now;
    if (c.breaker && c.breaker.state !== "closed" && !c.breaker.probeAvailable) {
      if (c.breaker.nextAttemptAt === undefined) continue;
      at = Math.max(at, c.breaker.nextAttemptAt);
    }
    const quotaEmpty = c.quota && (c.quota.remainingMinute === 0 || c.quota.remainingDay === 0);
    if (quotaEmpty) {
      if (!c.quota || c.quota.resetAt === null) continue;
      at = Math.max(at, c.quota.resetAt);
    }
    if (at > now && (best === null || at < best.at)) best = { provider: c.provider, at };
  }
  return best;
}
