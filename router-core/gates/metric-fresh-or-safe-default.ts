import { constantOutcome, failOutcome, passOutcome, type TGateFn } from "./gate";

const PASS_FRESH = passOutcome("metric_fresh_or_safe_default", "metrics fresh");
const PASS_NO_DATA = passOutcome("metric_fresh_or_safe_default", "no metrics yet; scored with safe defaults");
const FAIL_NO_DATA = constantOutcome(failOutcome("metric_fresh_or_safe_default", "no metrics and stale_policy is exclude"));

/**
 * Staleness only excludes under stale_policy "exclude". Under safe_default and penalty the gate
 * passes and the scoring step applies the policy, because excluding every provider whose
 * telemetry pipeline lags would turn a metrics outage into a routing outage (paper 4.4).
 */
export const metricFreshOrSafeDefault: TGateFn = ({ stale, metricAgeSeconds, maxMetricAgeSeconds, stalePolicy }) => {
  if (!stale) return PASS_FRESH;
  if (metricAgeSeconds === null) return stalePolicy === "exclude" ? FAIL_NO_DATA : PASS_NO_DATA;
  const age = `metrics ${Math.round(metricAgeSeconds)}s old (max ${maxMetricAgeSeconds}s)`;
  if (stalePolicy === "exclude") return failOutcome("metric_fresh_or_safe_default", `${age}; stale_policy is exclude`);
  return {
    gate: "metric_fresh_or_safe_default",
    passed: true,
    detail: stalePolicy === "penalty" ? `${age}; score penalised` : `${age}; scored with safe defaults`,
  };
};
