import { createQuotaState, observeThrottle, quotaView, type TQuotaState, type TQuotaView } from "../../router-core/index";
import type { RoutingState } from "../dataplane/routing-state";
import type { TRateLimitHint } from "./types";

/**
 * Feeds provider throttles into router-core's quota tracker and the routing state, so the
 * quota_available gate excludes a provider that answered 429 (or said its remaining requests are
 * 0) until its reset, for decide and execute alike, and the recovery ramp applies after it. The
 * views are republished when a throttle ends.
 */
export function createQuotaFeed(state: RoutingState, now: () => number) {
  const quotas = new Map<string, TQuotaState>();
  let timer: NodeJS.Timeout | null = null;
  let nextAt = Infinity;

  function publish(): void {
    const t = now();
    const views: Record<string, TQuotaView> = {};
    let soonest = Infinity;
    for (const [provider, q] of quotas) {
      const v = quotaView(q, t);
      views[provider] = v;
      if (v.resetAt !== null && v.resetAt > t) soonest = Math.min(soonest, v.resetAt);
      // A recovering provider's ceiling rises continuously: republish every second until it is back.
      if (v.shareCeiling !== undefined) soonest = Math.min(soonest, t + 1_000);
    }
    state.setQuotas(views);
    schedule(soonest);
  }

  function schedule(at: number): void {
    if (at === nextAt) return;
    if (timer) clearTimeout(timer);
    timer = null;
    nextAt = at;
    if (at === Infinity) return;
    timer = setTimeout(
      () => {
        timer = null;
        nextAt = Infinity;
        publish();
      },
      Math.max(0, at - now()) + 5,
    );
    timer.unref();
  }

  return {
    observe(provider: string, hint: TRateLimitHint): void {
      if (!hint.exhausted) return;
      const t = now();
      const q = quotas.get(provider) ?? createQuotaState(provider, {}, t);
      quotas.set(provider, observeThrottle(q, t, hint.retryAfterSeconds));
      publish();
    },
    /** True while the provider is throttled (a failover skips it without a call). */
    throttled(provider: string): boolean {
      const q = quotas.get(provider);
      return q !== undefined && q.throttledUntil !== null && now() < q.throttledUntil;
    },
    close(): void {
      if (timer) clearTimeout(timer);
      timer = null;
    },
  };
}

export type QuotaFeed = ReturnType<typeof createQuotaFeed>;
