import type { TOperationLimits } from "./config";

/**
 * Budget guards (the LLM-routing article (docs/references.md) pitfall 7: cost blindness during outages). Per operation: spend in
 * the current minute and UTC day against the caps, and how long the operation has been served
 * by a provider other than its primary. Spend is this instance's own plus the other instances'
 * as of the last sync (spend-sync.ts, about every second), so the caps hold for the cluster; the
 * overshoot is at most what the other instances spend between two syncs. Without a sync (tests,
 * a single instance) the others' share is zero.
 */
export type TBudgetBreach = {
  kind: "cost_cap_minute" | "cost_cap_day" | "max_fallback_duration";
  detail: string;
  evidence: Record<string, number | string | null>;
};

type TSpend = {
  minuteStart: number;
  /** This instance's spend in the window. */
  minute: number;
  /** The other instances' spend in the window, as of the last sync. */
  minuteOthers: number;
  dayStart: number;
  day: number;
  dayOthers: number;
  fallbackSince: number | null;
};

/** Spend not yet written to the shared table, by operation, window kind and window start. */
export type TSpendDelta = { operation: string; kind: "minute" | "day"; windowStart: number; amount: number };

const MINUTE_MS = 60_000;
const DAY_MS = 86_400_000;

/** The spend windows (UTC minute and day) that contain `t`, as their start times. */
export function spendWindowsAt(t: number): { minuteStart: number; dayStart: number } {
  return { minuteStart: t - (t % MINUTE_MS), dayStart: t - (t % DAY_MS) };
}

/** One guard's spend per operation and the spend not yet shared. */
type TBudgetState = { now: () => number; spend: Map<string, TSpend>; pending: Map<string, TSpendDelta> };

/** Others' spend per operation as the sync read it (see setOthers). */
type TOthersRead = {
  minuteStart: number;
  dayStart: number;
  others: ReadonlyMap<string, { minute: number; day: number; mineMinute?: number; mineDay?: number }>;
};

export function createBudgetGuard(now: () => number) {
  const b: TBudgetState = { now, spend: new Map(), pending: new Map() };
  return {
    /** The cost cap breached right now, if any (checked before a call is made). */
    costBreach(operation: string, limits: TOperationLimits): TBudgetBreach | null {
      return costBreach(b, operation, limits);
    },
    /** Seconds until the breached window resets. */
    retryAfterSeconds(operation: string, kind: TBudgetBreach["kind"]): number {
      const s = entry(b, operation);
      const t = now();
      const end = kind === "cost_cap_day" ? s.dayStart + DAY_MS : s.minuteStart + MINUTE_MS;
      return Math.max(1, Math.ceil((end - t) / 1000));
    },
    charge(operation: string, cost: number): void {
      if (!(cost > 0)) return;
      const s = entry(b, operation);
      s.minute += cost;
      s.day += cost;
      addPending(b, operation, "minute", s.minuteStart, cost);
      addPending(b, operation, "day", s.dayStart, cost);
    },
    /** Takes the spend not yet shared (the sync writes it; on failure it gives it back with `restore`). */
    takePending(): TSpendDelta[] {
      const out = [...b.pending.values()];
      b.pending = new Map();
      return out;
    },
    restore(deltas: readonly TSpendDelta[]): void {
      for (const d of deltas) addPending(b, d.operation, d.kind, d.windowStart, d.amount);
    },
    /** The current windows' starts, for the sync's read. */
    windows(): { minuteStart: number; dayStart: number } {
      return spendWindowsAt(now());
    },
    /**
     * The other instances' spend per operation in the windows just read (operations not listed
     * spent nothing), and this instance's own rows: more than it counted means it restarted under
     * the same instance id, and the rows are its spend so far.
     */
    setOthers(read: TOthersRead): void {
      setOthers(b, read);
    },
    /** Records who served: the primary ends a fallback period, anyone else starts or continues one. */
    served(operation: string, byPrimary: boolean): void {
      const s = entry(b, operation);
      if (byPrimary) s.fallbackSince = null;
      else if (s.fallbackSince === null) s.fallbackSince = now();
    },
    /** A fallback period longer than the limit: only the primary may serve until it recovers. */
    fallbackBreach(operation: string, limits: TOperationLimits): TBudgetBreach | null {
      return fallbackBreach(b, operation, limits);
    },
    /** Spend in the current windows, all instances (as of the last sync), and this instance's part. */
    snapshot(operation: string): {
      spentMinute: number;
      spentDay: number;
      spentMinuteThisInstance: number;
      spentDayThisInstance: number;
      fallbackSince: number | null;
    } {
      const s = entry(b, operation);
      return {
        spentMinute: s.minute + s.minuteOthers,
        spentDay: s.day + s.dayOthers,
        spentMinuteThisInstance: s.minute,
        spentDayThisInstance: s.day,
        fallbackSince: s.fallbackSince,
      };
    },
  };
}

/** The operation's spend, its windows moved on to the ones containing now. */
function entry(b: TBudgetState, operation: string): TSpend {
  const w = spendWindowsAt(b.now());
  let s = b.spend.get(operation);
  if (!s) {
    s = { minuteStart: w.minuteStart, minute: 0, minuteOthers: 0, dayStart: w.dayStart, day: 0, dayOthers: 0, fallbackSince: null };
    b.spend.set(operation, s);
  }
  if (w.minuteStart > s.minuteStart) {
    s.minuteStart = w.minuteStart;
    s.minute = 0;
    s.minuteOthers = 0;
  }
  if (w.dayStart > s.dayStart) {
    s.dayStart = w.dayStart;
    s.day = 0;
    s.dayOthers = 0;
  }
  return s;
}

function addPending(b: TBudgetState, operation: string, kind: "minute" | "day", windowStart: number, amount: number): void {
  const key = `${operation}\u001f${kind}\u001f${windowStart}`;
  const d = b.pending.get(key);
  if (d) d.amount += amount;
  else b.pending.set(key, { operation, kind, windowStart, amount });
}

function costBreach(b: TBudgetState, operation: string, limits: TOperationLimits): TBudgetBreach | null {
  if (limits.costCapPerMinute === null && limits.costCapPerDay === null) return null;
  const s = entry(b, operation);
  const minute = s.minute + s.minuteOthers;
  const day = s.day + s.dayOthers;
  if (limits.costCapPerMinute !== null && minute >= limits.costCapPerMinute) {
    return {
      kind: "cost_cap_minute",
      detail: `spend this minute ${round(minute)} (all instances) reached the cap of ${limits.costCapPerMinute}`,
      evidence: {
        spentMinute: round(minute),
        spentMinuteThisInstance: round(s.minute),
        capPerMinute: limits.costCapPerMinute,
        resetsAt: new Date(s.minuteStart + MINUTE_MS).toISOString(),
      },
    };
  }
  if (limits.costCapPerDay !== null && day >= limits.costCapPerDay) {
    return {
      kind: "cost_cap_day",
      detail: `spend today ${round(day)} (all instances) reached the cap of ${limits.costCapPerDay}`,
      evidence: {
        spentDay: round(day),
        spentDayThisInstance: round(s.day),
        capPerDay: limits.costCapPerDay,
        resetsAt: new Date(s.dayStart + DAY_MS).toISOString(),
      },
    };
  }
  return null;
}

function setOthers(b: TBudgetState, read: TOthersRead): void {
  const operations = new Set([...b.spend.keys(), ...read.others.keys()]);
  for (const operation of operations) {
    const s = entry(b, operation);
    const o = read.others.get(operation);
    if (s.minuteStart === read.minuteStart) {
      s.minuteOthers = o?.minute ?? 0;
      if ((o?.mineMinute ?? 0) > s.minute) s.minute = o!.mineMinute!;
    }
    if (s.dayStart === read.dayStart) {
      s.dayOthers = o?.day ?? 0;
      if ((o?.mineDay ?? 0) > s.day) s.day = o!.mineDay!;
    }
  }
}

function fallbackBreach(b: TBudgetState, operation: string, limits: TOperationLimits): TBudgetBreach | null {
  if (limits.maxFallbackSeconds === null) return null;
  const s = entry(b, operation);
  if (s.fallbackSince === null) return null;
  const seconds = (b.now() - s.fallbackSince) / 1000;
  if (seconds <= limits.maxFallbackSeconds) return null;
  return {
    kind: "max_fallback_duration",
    detail: `served by fallback providers for ${Math.round(seconds)} s, over the limit of ${limits.maxFallbackSeconds} s`,
    evidence: { fallbackSince: new Date(s.fallbackSince).toISOString(), fallbackSeconds: Math.round(seconds), maxFallbackSeconds: limits.maxFallbackSeconds },
  };
}

export type BudgetGuard = ReturnType<typeof createBudgetGuard>;

function round(x: number): number {
  return Math.round(x * 1e6) / 1e6;
}
