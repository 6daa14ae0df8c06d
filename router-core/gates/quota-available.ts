import { failOutcome, passOutcome, type TGateFn } from "./gate";

const PASS_UNTRACKED = passOutcome("quota_available", "no quota tracked for provider");
// Remaining counts are in the quota view logged beside the decision; a constant keeps this allocation-free.
const PASS = passOutcome("quota_available", "quota remaining");
const PASS_UNLIMITED = passOutcome("quota_available", "quota unlimited");

export const quotaAvailable: TGateFn = ({ quota, now }) => {
  if (quota === undefined) return PASS_UNTRACKED;
  const { remainingMinute, remainingDay } = quota;
  if (remainingMinute === null && remainingDay === null) return PASS_UNLIMITED;
  if (remainingMinute !== null && remainingMinute <= 0) return failOutcome("quota_available", `per-minute quota exhausted${resets(quota.resetAt, now)}`);
  if (remainingDay !== null && remainingDay <= 0) return failOutcome("quota_available", `daily quota exhausted${resets(quota.resetAt, now)}`);
  return PASS;
};

/** Only built for a failing outcome: number formatting is the costliest thing a gate could do per request. */
function resets(resetAt: number | null, now: number): string {
  return resetAt === null ? "" : `, resets in ${Math.max(0, Math.ceil((resetAt - now) / 1000))}s`;
}
