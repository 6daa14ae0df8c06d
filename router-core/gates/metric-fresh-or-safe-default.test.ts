import { describe, expect, it } from "vitest";
import { gateInput } from "./gate-input.fixture";
import { metricFreshOrSafeDefault } from "./metric-fresh-or-safe-default";

const GATE = "metric_fresh_or_safe_default";

describe("metric_fresh_or_safe_default", () => {
  it("passes fresh metrics whatever the stale policy", () => {
    for (const stalePolicy of ["safe_default", "penalty", "exclude"] as const) {
      expect(metricFreshOrSafeDefault(gateInput({ stalePolicy }))).toEqual({ gate: GATE, passed: true, detail: "metrics fresh" });
    }
  });

  it("with no metrics at all: safe defaults, or excluded under exclude", () => {
    const none = { stale: true, metricAgeSeconds: null };
    expect(metricFreshOrSafeDefault(gateInput(none))).toEqual({ gate: GATE, passed: true, detail: "no metrics yet; scored with safe defaults" });
    expect(metricFreshOrSafeDefault(gateInput({ ...none, stalePolicy: "exclude" }))).toEqual({
      gate: GATE,
      passed: false,
      detail: "no metrics and stale_policy is exclude",
    });
  });

  it("with old metrics: says how old, against the maximum, and what the policy does", () => {
    const old = { stale: true, metricAgeSeconds: 125.4, maxMetricAgeSeconds: 60 };
    expect(metricFreshOrSafeDefault(gateInput(old))).toEqual({ gate: GATE, passed: true, detail: "metrics 125s old (max 60s); scored with safe defaults" });
    expect(metricFreshOrSafeDefault(gateInput({ ...old, stalePolicy: "penalty" }))).toEqual({
      gate: GATE,
      passed: true,
      detail: "metrics 125s old (max 60s); score penalised",
    });
    expect(metricFreshOrSafeDefault(gateInput({ ...old, stalePolicy: "exclude" }))).toEqual({
      gate: GATE,
      passed: false,
      detail: "metrics 125s old (max 60s); stale_policy is exclude",
    });
  });
});
