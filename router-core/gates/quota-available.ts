import type { TQuotaView } from "../types";
import { constantOutcome, countdown, failOutcome, passOutcome, timedOutcome, type TGateFn, type TGateOutcome } from "./gate";

const PASS_UNTRACKED = passOutcome("quota_available", "no quota tracked for provider");
// Remaining counts are in the quota view logged beside the decision; a constant keeps this allocation-free.
const PASS = passOutcome("quota_available", "quota remaining");
const PASS_UNLIMITED = passOutcome("quota_available", "quota unlimited");
const FAIL_MINUTE = constantOutcome(failOutcome("quota_available", "per-minute quota exhausted"));
const FAIL_DAILY = constantOutcome(failOutcome("quota_available", "daily quota exhausted"));
const FAIL_CEILING_0 = constantOutcome(failOutcome("quota_available", "quota recovering: share ceiling 0 until the reset"));

export const quotaAvailable: TGateFn = ({ quota, now }) => quotaOutcome(quota, now);

/** The gate on a quota view alone: execute's failover asks it again before a call the decision did not route. */
export function quotaOutcome(quota: TQuotaView | undefined, now: number): TGateOutcome {
  if (quota === undefined) return PASS_UNTRACKED;
  const { remainingMinute, remainingDay } = quota;
  if (remainingMinute === null && remainingDay === null) return ceilingOutcome(quota.shareCeiling) ?? PASS_UNLIMITED;
  if (remainingMinute !== null && remainingMinute <= 0) return exhausted(quota.window ?? "per-minute", quota.resetAt, now);
  if (remainingDay !== null && remainingDay <= 0) return exhausted(quota.window ?? "daily", quota.resetAt, now);
  return ceilingOutcome(quota.shareCeiling) ?? PASS;
}

/**
 * Only built for a failing outcome: number formatting is the costliest thing a gate could do per
 * request. The countdown makes it a timed outcome (gate.ts), the same for a second at a time.
 */
function exhausted(which: string, resetAt: number | null, now: number): TGateOutcome {
  if (resetAt === null)
    return which === "daily" ? FAIL_DAILY : which === "per-minute" ? FAIL_MINUTE : failOutcome("quota_available", `${which} quota exhausted`);
  const left = countdown(resetAt, now);
  return timedOutcome(failOutcome("quota_available", `${which} quota exhausted, resets in ${left.seconds}s`), left.from, left.until);
}

/**
 * A provider recovering from exhaustion passes with its ceiling in the detail, so the record says
 * why its probability is below its share; only built in that phase. A ceiling of 0 (exhausted or
 * pre-allocating) admits no live traffic at all, which is a failed gate, not a share of 0.
 */
function ceilingOutcome(ceiling: number | undefined): TGateOutcome | null {
  if (ceiling === undefined || !(ceiling < 1)) return null;
  if (!(ceiling > 0)) return FAIL_CEILING_0;
  // Depends on the ceiling only: valid at any time.
  return timedOutcome(
    { gate: "quota_available", passed: true, detail: `quota recovering from exhaustion: share capped at ${percent(ceiling)}` },
    -Infinity,
    Infinity,
  );
}

function percent(x: number): string {
  return `${Math.round(x * 1000) / 10}%`;
}
