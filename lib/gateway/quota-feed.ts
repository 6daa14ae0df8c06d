import { createQuotaState, observeThrottle, quotaView, type TQuotaState, type TQuotaView } from "../../router-core/index";
import type { RoutingState } from "../dataplane";
import type { TRateLimitHint } from "./types";

/**
 * Feeds provider throttles into router-core's quota tracker and the routing state, so the
 * quota_available gate excludes a provider that answered 429 (or said its remaining requests are
 * 0) until its reset, for decide and execute alike, and the recovery ramp applies after it. The
 * views are republished when a throttle ends.
 */
export function createQuotaFeed(state: RoutingState, now: () => number) {
  const quotas = new Map<string, TQuotaState>();
  /** Throttles this instance learned and has not shared yet (throttle-sync.ts), latest reset per provider. */
  let learned = new Map<string, number>();
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
    state.setQuotaViews("throttles", views);
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
      const q = observeThrottle(quotas.get(provider) ?? createQuotaState(provider, {}, t), t, hint.retryAfterSeconds);
      quotas.set(provider, q);
      if (q.throttledUntil !== null) learned.set(provider, Math.max(learned.get(provider) ?? 0, q.throttledUntil));
      publish();
    },
    /** Another instance's throttle: adopted when it ends later than this instance's own. */
    adopt(provider: string, until: number): void {
      const t = now();
      const q = quotas.get(provider);
      if (until <= t || (q?.throttledUntil ?? 0) >= until) return;
      quotas.set(provider, observeThrottle(q ?? createQuotaState(provider, {}, t), t, (until - t) / 1000));
      publish();
    },
    /** The throttles learned since the last call, to share. */
    takeLearned(): Array<{ provider: string; until: number }> {
      const out = [...learned].map(([provider, until]) => ({ provider, until }));
      learned = new Map();
      return out;
    },
    /** Puts back throttles whose write failed, for the next sync. */
    restoreLearned(items: ReadonlyArray<{ provider: string; until: number }>): void {
      for (const i of items) learned.set(i.provider, Math.max(learned.get(i.provider) ?? 0, i.until));
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
