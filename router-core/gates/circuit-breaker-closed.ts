import { constantOutcome, countdown, failOutcome, passOutcome, timedOutcome, type TGateFn } from "./gate";

const PASS_CLOSED = passOutcome("circuit_breaker_closed", "circuit closed");
const PASS_UNTRACKED = passOutcome("circuit_breaker_closed", "no breaker state yet; treated as closed");
const PASS_PROBE = passOutcome("circuit_breaker_closed", "circuit half-open; this request may be a probe");
const FAIL_OPEN = constantOutcome(failOutcome("circuit_breaker_closed", "circuit open"));
const FAIL_NO_PROBE = constantOutcome(failOutcome("circuit_breaker_closed", "circuit half-open and every probe slot is taken"));

export const circuitBreakerClosed: TGateFn = ({ breaker, now }) => {
  if (breaker === undefined) return PASS_UNTRACKED;
  if (breaker.state === "closed") return PASS_CLOSED;
  if (breaker.state === "half_open") return breaker.probeAvailable ? PASS_PROBE : FAIL_NO_PROBE;
  if (breaker.nextAttemptAt === undefined) return FAIL_OPEN;
  const left = countdown(breaker.nextAttemptAt, now);
  return timedOutcome(failOutcome("circuit_breaker_closed", `circuit open; next attempt in ${left.seconds}s`), left.from, left.until);
};
