import { constantOutcome, failOutcome, passOutcome, timedOutcome, windowAround, type TGateFn, type TGateOutcome } from "./gate";

const PASS_FRESH = passOutcome("metric_fresh_or_safe_default", "metrics fresh");
const PASS_NO_DATA = passOutcome("metric_fresh_or_safe_default", "no metrics yet; scored with safe defaults");
const FAIL_NO_DATA = constantOutcome(failOutcome("metric_fresh_or_safe_default", "no metrics and stale_policy is exclude"));

/**
 * A metric age as the record states it, in whole seconds: the gate's detail and the stale
 * penalty's raw age say the same number, and within a second a stale candidate's record is the
 * same text (so the log stores its candidate list once, not per decision).
 */
export const statedAgeSeconds = (seconds: number): number => Math.round(seconds);

/**
 * Staleness only excludes under stale_policy "exclude". Under safe_default and penalty the gate
 * passes and the scoring step applies the policy, because excluding every provider whose
 * telemetry pipeline lags would turn a metrics outage into a routing outage (the paper's section 4.4, docs/references.md).
 */
export const metricFreshOrSafeDefault: TGateFn = ({ stale, metricAgeSeconds, maxMetricAgeSeconds, stalePolicy, metrics, now }) => {
  if (!stale) return PASS_FRESH;
  if (metricAgeSeconds === null) return stalePolicy === "exclude" ? FAIL_NO_DATA : PASS_NO_DATA;
  const seconds = statedAgeSeconds(metricAgeSeconds);
  const age = `metrics ${seconds}s old (max ${maxMetricAgeSeconds}s)`;
  const o: TGateOutcome =
    stalePolicy === "exclude"
      ? failOutcome("metric_fresh_or_safe_default", `${age}; stale_policy is exclude`)
      : {
          gate: "metric_fresh_or_safe_default",
          passed: true,
          detail: stalePolicy === "penalty" ? `${age}; score penalised` : `${age}; scored with safe defaults`,
        };
  // Math.round(age) = seconds for an age from half a second below to half a second above it.
  const at = metrics?.updatedAt;
  if (at == null) return o;
  const { from, until } = windowAround(now, at + 1000 * seconds - 500, at + 1000 * seconds + 500);
  return timedOutcome(o, from, until);
};
