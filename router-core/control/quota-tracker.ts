import type { TQuotaView } from "../types";
import { expectNullableNumber, expectNumber, expectObject, expectString } from "./json-shape";
import { checkNumber, checkTime, closed, open } from "./options";

/**
 * The quota tracking table of the token-gateway article (docs/references.md) section 5, one row per provider: per-minute and per-day
 * limits, used, remaining, reset time. A 429 with Retry-After marks the provider exhausted until
 * then, whatever the counters say, because the provider's own accounting is the one that counts.
 *
 * Pre-allocation ("five minutes before a quota reset, start pre-allocating requests to the
 * recovering provider to avoid a traffic spike") is modelled as a ramp that `quotaRamp` exposes:
 *
 *   exhausted ──(resetAt − P)──▶ preallocating ──(resetAt)──▶ recovering ──(resetAt + P)──▶ available
 *
 * where P = min(preallocation_seconds, length of the exhaustion). While `preallocating`, live
 * calls would still be rejected, so the share ceiling stays 0, but up to
 * `preallocation_fraction` of the coming window's capacity may be promised to requests that are
 * queued for dispatch at the reset (`preallocateQuota`; the fallback's queue answer carries the
 * retry-after). The promised units are charged to the new window when it opens. While
 * `recovering`, `shareCeiling` rises linearly from `preallocation_fraction` to 1, and the
 * consumer of the shares (decide, between controller ticks) caps the provider's share by it and
 * renormalises the rest. Without the ceiling, a provider the quota gate excluded would get its
 * whole pre-exhaustion share back at the instant of the reset, which is the spike the token-gateway article (docs/references.md) warns
 * about; the controller's own shift cap only acts at its next tick.
 */

export type TQuotaConfig = {
  /** null: no per-minute limit. */
  per_minute: number | null;
  /** null: no per-day limit. */
  per_day: number | null;
  preallocation_seconds: number;
  preallocation_fraction: number;
  /** Day windows start at UTC midnight plus this offset (providers reset at their own hour). */
  day_reset_offset_seconds: number;
};

export const DEFAULT_QUOTA_CONFIG: Readonly<TQuotaConfig> = Object.freeze({
  per_minute: null,
  per_day: null,
  preallocation_seconds: 300,
  preallocation_fraction: 0.2,
  day_reset_offset_seconds: 0,
});

export type TQuotaWindow = { windowStart: number; used: number };

export type TQuotaState = {
  provider: string;
  config: TQuotaConfig;
  minute: TQuotaWindow;
  day: TQuotaWindow;
  throttledUntil: number | null;
  /** The latest exhaustion, kept past its end so the recovery ramp can be computed. */
  exhaustion: { since: number; until: number } | null;
  /** Units of the window opening at `resetAt` already promised to queued requests. */
  preallocated: { resetAt: number; count: number } | null;
};

export const QUOTA_PHASES = ["available", "exhausted", "preallocating", "recovering"] as const;
export type TQuotaPhase = (typeof QUOTA_PHASES)[number];

export type TQuotaRamp = {
  phase: TQuotaPhase;
  /** Upper bound on the provider's traffic share right now, in [0, 1]. */
  shareCeiling: number;
  /** Units that may be promised now for dispatch at `resetAt` (preallocating only, else 0). */
  preallocatable: number;
  resetAt: number | null;
};

const MINUTE_MS = 60_000;
const DAY_MS = 86_400_000;

export function resolveQuotaConfig(options: Partial<TQuotaConfig> = {}): TQuotaConfig {
  const c = { ...DEFAULT_QUOTA_CONFIG, ...options };
  if (c.per_minute !== null) checkNumber("per_minute", c.per_minute, closed(0), null, true);
  if (c.per_day !== null) checkNumber("per_day", c.per_day, closed(0), null, true);
  checkNumber("preallocation_seconds", c.preallocation_seconds, closed(0), null);
  checkNumber("preallocation_fraction", c.preallocation_fraction, closed(0), closed(1));
  checkNumber("day_reset_offset_seconds", c.day_reset_offset_seconds, closed(0), open(86_400));
  return c;
}

export function createQuotaState(provider: string, options: Partial<TQuotaConfig>, now: number): TQuotaState {
  checkTime("now", now);
  const config = resolveQuotaConfig(options);
  return {
    provider,
    config,
    minute: { windowStart: minuteStart(now), used: 0 },
    day: { windowStart: dayStart(now, config), used: 0 },
    throttledUntil: null,
    exhaustion: null,
    preallocated: null,
  };
}

/** Limits change with the provider contract; counters and throttles carry over. */
export function reconfigureQuota(state: TQuotaState, options: Partial<TQuotaConfig>, now: number): TQuotaState {
  return markExhaustion({ ...state, config: resolveQuotaConfig({ ...state.config, ...options }) }, now);
}

export function consumeQuota(state: TQuotaState, now: number, units = 1): TQuotaState {
  checkTime("now", now);
  checkNumber("units", units, closed(0), null, true);
  const s = roll(state, now);
  return markExhaustion({ ...s, minute: { ...s.minute, used: s.minute.used + units }, day: { ...s.day, used: s.day.used + units } }, now);
}

/**
 * A throttle response. Without Retry-After the provider is assumed blocked until its next minute
 * boundary, the shortest window providers commonly meter.
 */
export function observeThrottle(state: TQuotaState, now: number, retryAfterSeconds: number | null): TQuotaState {
  checkTime("now", now);
  if (retryAfterSeconds !== null) checkNumber("retryAfterSeconds", retryAfterSeconds, closed(0), null);
  const s = roll(state, now);
  const until = retryAfterSeconds === null ? minuteStart(now) + MINUTE_MS : now + retryAfterSeconds * 1000;
  const throttledUntil = Math.max(s.throttledUntil ?? until, until);
  return markExhaustion({ ...s, throttledUntil }, now);
}

/** Promises up to `units` of the coming window to queued requests; `granted` may be fewer. */
export function preallocateQuota(state: TQuotaState, now: number, units = 1): { state: TQuotaState; granted: number } {
  checkNumber("units", units, closed(0), null, true);
  const ramp = quotaRamp(state, now);
  const granted = Math.min(units, ramp.preallocatable);
  if (granted === 0 || ramp.resetAt === null) return { state, granted: 0 };
  const count = (state.preallocated?.resetAt === ramp.resetAt ? state.preallocated.count : 0) + granted;
  return { state: { ...state, preallocated: { resetAt: ramp.resetAt, count } }, granted };
}

export function quotaView(state: TQuotaState, now: number): TQuotaView {
  const s = roll(state, now);
  const { per_minute, per_day } = s.config;
  const throttled = s.throttledUntil !== null && now < s.throttledUntil;
  const remainingMinute = throttled ? 0 : per_minute === null ? null : Math.max(0, per_minute - s.minute.used);
  const remainingDay = per_day === null ? null : throttled ? 0 : Math.max(0, per_day - s.day.used);
  const until = exhaustedUntil(s, now);
  if (until !== null) return { remainingMinute, remainingDay, resetAt: until };
  const nextMinute = per_minute === null ? null : s.minute.windowStart + MINUTE_MS;
  const nextDay = per_day === null ? null : s.day.windowStart + DAY_MS;
  const view: TQuotaView = { remainingMinute, remainingDay, resetAt: nextMinute ?? nextDay };
  // Only while recovering: before the reset the counters already fail the quota gate, after the ramp there is no cap.
  const ramp = quotaRamp(s, now);
  if (ramp.phase === "recovering") view.shareCeiling = ramp.shareCeiling;
  return view;
}

export function quotaRamp(state: TQuotaState, now: number): TQuotaRamp {
  const s = roll(state, now);
  const ex = s.exhaustion;
  const fraction = s.config.preallocation_fraction;
  if (ex === null || now >= ex.until + rampMs(s)) return { phase: "available", shareCeiling: 1, preallocatable: 0, resetAt: null };
  const p = rampMs(s);
  if (now >= ex.until) {
    const progress = p === 0 ? 1 : (now - ex.until) / p;
    return { phase: "recovering", shareCeiling: fraction + (1 - fraction) * progress, preallocatable: 0, resetAt: ex.until };
  }
  if (now < ex.until - p) return { phase: "exhausted", shareCeiling: 0, preallocatable: 0, resetAt: ex.until };
  const progress = p === 0 ? 1 : (now - (ex.until - p)) / p;
  const reserve = Math.floor(fraction * capacityAt(s, ex.until));
  const promised = s.preallocated?.resetAt === ex.until ? s.preallocated.count : 0;
  const preallocatable = Math.max(0, Math.floor(reserve * progress) - promised);
  return { phase: "preallocating", shareCeiling: 0, preallocatable, resetAt: ex.until };
}

function rampMs(s: TQuotaState): number {
  const ex = s.exhaustion;
  return ex === null ? 0 : Math.min(s.config.preallocation_seconds * 1000, ex.until - ex.since);
}

/** What the first minute after `at` can carry: the minute limit, else the day limit, else nothing known. */
function capacityAt(s: TQuotaState, at: number): number {
  const { per_minute, per_day } = s.config;
  const dayLeftAt = per_day === null ? null : at >= s.day.windowStart + DAY_MS ? per_day : Math.max(0, per_day - s.day.used);
  if (per_minute === null) return dayLeftAt ?? 0;
  return dayLeftAt === null ? per_minute : Math.min(per_minute, dayLeftAt);
}

function minuteStart(now: number): number {
  return Math.floor(now / MINUTE_MS) * MINUTE_MS;
}

function dayStart(now: number, config: TQuotaConfig): number {
  const offset = config.day_reset_offset_seconds * 1000;
  return Math.floor((now - offset) / DAY_MS) * DAY_MS + offset;
}

/** Moves the windows to the ones containing `now`, charging promised units to the window they were promised from. */
function roll(state: TQuotaState, now: number): TQuotaState {
  const m = minuteStart(now);
  const d = dayStart(now, state.config);
  if (m <= state.minute.windowStart && d <= state.day.windowStart) return state;
  const pre = state.preallocated;
  const due = pre !== null && now >= pre.resetAt;
  const charge = (start: number, length: number): number => (due && pre.resetAt >= start && pre.resetAt < start + length ? pre.count : 0);
  const minute = m > state.minute.windowStart ? { windowStart: m, used: charge(m, MINUTE_MS) } : state.minute;
  const day = d > state.day.windowStart ? { windowStart: d, used: charge(d, DAY_MS) } : state.day;
  return { ...state, minute, day, preallocated: due ? null : pre };
}

function exhaustedUntil(s: TQuotaState, now: number): number | null {
  const { per_minute, per_day } = s.config;
  let until: number | null = null;
  const extend = (t: number) => {
    until = until === null ? t : Math.max(until, t);
  };
  if (s.throttledUntil !== null && now < s.throttledUntil) extend(s.throttledUntil);
  if (per_minute !== null && s.minute.used >= per_minute) extend(s.minute.windowStart + MINUTE_MS);
  if (per_day !== null && s.day.used >= per_day) extend(s.day.windowStart + DAY_MS);
  return until;
}

function markExhaustion(s: TQuotaState, now: number): TQuotaState {
  const until = exhaustedUntil(s, now);
  if (until === null) return s;
  const prev = s.exhaustion;
  // Extending an ongoing exhaustion keeps its start, so the ramp length reflects the whole outage.
  if (prev !== null && now < prev.until) return { ...s, exhaustion: { since: prev.since, until: Math.max(prev.until, until) } };
  return { ...s, exhaustion: { since: now, until } };
}

export function restoreQuotaState(json: unknown): TQuotaState {
  const o = expectObject("quota", json);
  const c = expectObject("quota.config", o.config);
  const window = (name: "minute" | "day"): TQuotaWindow => {
    const w = expectObject(`quota.${name}`, o[name]);
    return { windowStart: expectNumber(`quota.${name}.windowStart`, w.windowStart), used: expectNumber(`quota.${name}.used`, w.used) };
  };
  const ex = o.exhaustion === null || o.exhaustion === undefined ? null : expectObject("quota.exhaustion", o.exhaustion);
  const pre = o.preallocated === null || o.preallocated === undefined ? null : expectObject("quota.preallocated", o.preallocated);
  return {
    provider: expectString("quota.provider", o.provider),
    config: resolveQuotaConfig({
      per_minute: expectNullableNumber("quota.config.per_minute", c.per_minute),
      per_day: expectNullableNumber("quota.config.per_day", c.per_day),
      preallocation_seconds: expectNumber("quota.config.preallocation_seconds", c.preallocation_seconds),
      preallocation_fraction: expectNumber("quota.config.preallocation_fraction", c.preallocation_fraction),
      day_reset_offset_seconds: expectNumber("quota.config.day_reset_offset_seconds", c.day_reset_offset_seconds),
    }),
    minute: window("minute"),
    day: window("day"),
    throttledUntil: expectNullableNumber("quota.throttledUntil", o.throttledUntil),
    exhaustion: ex && {
      since: expectNumber("quota.exhaustion.since", ex.since),
      until: expectNumber("quota.exhaustion.until", ex.until),
    },
    preallocated: pre && {
      resetAt: expectNumber("quota.preallocated.resetAt", pre.resetAt),
      count: expectNumber("quota.preallocated.count", pre.count),
    },
  };
}
