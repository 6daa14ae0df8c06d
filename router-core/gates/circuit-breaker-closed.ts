import { constantOutcome, failOutcome, passOutcome, type TGateFn } from "./gate";

const PASS_CLOSED = passOutcome("circuit_breaker_closed", "circuit closed");
const PASS_UNTRACKED = passOutcome("circuit_breaker_closed", "no breaker state yet; treated as closed");
const PASS_PROBE = passOutcome("circuit_breaker_closed", "circuit half-open; this request may be a probe");
const FAIL_NO_PROBE = constantOutcome(failOutcome("circuit_breaker_closed", "circuit half-open and every probe slot is taken"));

export const circuitBreakerClosed: TGateFn = ({ breaker, now }) => {
  if (breaker === undefined) return PASS_UNTRACKED;
  if (breaker.state === "closed") return PASS_CLOSED;
  if (breaker.state === "half_open") return breaker.probeAvailable ? PASS_PROBE : FAIL_NO_PROBE;
  const retry =
    breaker.nextAttemptAt === undefined ? "" : `; next attempt in ${Math.max(0, Math.ceil((breaker.nextAttemptAt - now) / 1000))}s`;
  return failOutcome("circuit_breaker_closed", `circuit open${retry}`);
};
