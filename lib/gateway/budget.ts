import type { TOperationLimits } from "./config";

/**
 * Budget guards (seeds/001 pitfall 7: cost blindness during outages). Per operation: spend in
 * the current minute and UTC day against the caps, and how long the operation has been served
 * by a provider other than its primary. Counted per instance: each instance enforces the caps
 * on its own traffic, so with N instances an operator sets the caps per instance (README).
 */
export type TBudgetBreach = { kind: "cost_cap_minute" | "cost_cap_day" | "max_fallback_duration"; detail: string; evidence: Record<string, number | string | null> };

type TSpend = { minuteStart: number; minute: number; dayStart: number; day: number; fallbackSince: number | null };

const MINUTE_MS = 60_000;
const DAY_MS = 86_400_000;

export function createBudgetGuard(now: () => number) {
  const spend = new Map<string, TSpend>();

  function entry(operation: string): TSpend {
    const t = now();
    let s = spend.get(operation);
    if (!s) {
      s = { minuteStart: t - (t % MINUTE_MS), minute: 0, dayStart: t - (t % DAY_MS), day: 0, fallbackSince: null };
      spend.set(operation, s);
    }
    if (t - s.minuteStart >= MINUTE_MS) {
      s.minuteStart = t - (t % MINUTE_MS);
      s.minute = 0;
    }
    if (t - s.dayStart >= DAY_MS) {
      s.dayStart = t - (t % DAY_MS);
      s.day = 0;
    }
    return s;
  }

  return {
    /** The cost cap breached right now, if any (checked before a call is made). */
    costBreach(operation: string, limits: TOperationLimits): TBudgetBreach | null {
      if (limits.costCapPerMinute === null && limits.costCapPerDay === null) return null;
      const s = entry(operation);
      if (limits.costCapPerMinute !== null && s.minute >= limits.costCapPerMinute) {
        return {
          kind: "cost_cap_minute",
          detail: `spend this minute ${round(s.minute)} reached the cap of ${limits.costCapPerMinute}`,
          evidence: { spentMinute: round(s.minute), capPerMinute: limits.costCapPerMinute, resetsAt: new Date(s.minuteStart + MINUTE_MS).toISOString() },
        };
      }
      if (limits.costCapPerDay !== null && s.day >= limits.costCapPerDay) {
        return {
          kind: "cost_cap_day",
          detail: `spend today ${round(s.day)} reached the cap of ${limits.costCapPerDay}`,
          evidence: { spentDay: round(s.day), capPerDay: limits.costCapPerDay, resetsAt: new Date(s.dayStart + DAY_MS).toISOString() },
        };
      }
      return null;
    },
    /** Seconds until the breached window resets. */
    retryAfterSeconds(operation: string, kind: TBudgetBreach["kind"]): number {
      const s = entry(operation);
      const t = now();
      const end = kind === "cost_cap_day" ? s.dayStart + DAY_MS : s.minuteStart + MINUTE_MS;
      return Math.max(1, Math.ceil((end - t) / 1000));
    },
    charge(operation: string, cost: number): void {
      if (!(cost > 0)) return;
      const s = entry(operation);
      s.minute += cost;
      s.day += cost;
    },
    /** Records who served: the primary ends a fallback period, anyone else starts or continues one. */
    served(operation: string, byPrimary: boolean): void {
      const s = entry(operation);
      if (byPrimary) s.fallbackSince = null;
      else if (s.fallbackSince === null) s.fallbackSince = now();
    },
    /** A fallback period longer than the limit: only the primary may serve until it recovers. */
    fallbackBreach(operation: string, limits: TOperationLimits): TBudgetBreach | null {
      if (limits.maxFallbackSeconds === null) return null;
      const s = entry(operation);
      if (s.fallbackSince === null) return null;
      const seconds = (now() - s.fallbackSince) / 1000;
      if (seconds <= limits.maxFallbackSeconds) return null;
      return {
        kind: "max_fallback_duration",
        detail: `served by fallback providers for ${Math.round(seconds)} s, over the limit of ${limits.maxFallbackSeconds} s`,
        evidence: { fallbackSince: new Date(s.fallbackSince).toISOString(), fallbackSeconds: Math.round(seconds), maxFallbackSeconds: limits.maxFallbackSeconds },
      };
    },
    snapshot(operation: string): { spentMinute: number; spentDay: number; fallbackSince: number | null } {
      const s = entry(operation);
      return { spentMinute: s.minute, spentDay: s.day, fallbackSince: s.fallbackSince };
    },
  };
}

export type BudgetGuard = ReturnType<typeof createBudgetGuard>;

function round(x: number): number {
  return Math.round(x * 1e6) / 1e6;
}
