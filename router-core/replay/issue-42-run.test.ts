import { describe, expect, it } from "vitest";
import { ROUTING_DEFAULTS } from "../control/routing-defaults";
import { runIssue42, worstMinuteMove, type TIssueRun } from "./issue-42-run";

/**
 * Issue 42's run on the replay's router with Listing 1's own timings (5-minute window, 300 s
 * cooldown, 0.50/min cap, 1% probe floor, 200 samples) and a simulated clock: A healthy for 60 s,
 * every fifth call failing for 6 minutes, then healthy; B reported only when chosen.
 */
const MINUTE = 60_000;
const HEALTHY_S = 60;
const DEGRADED_S = 360;
const healthyFrom = (HEALTHY_S + DEGRADED_S) * 1000;

function shareA(run: TIssueRun, at: number): number {
  return [...run.ticks].reverse().find((t) => t.at <= at)!.shares.provider_A!;
}

/** First tick after the degradation ended at which A's planned share is at least `share`, as ms after the end; null if never. */
function backAfter(run: TIssueRun, share: number): number | null {
  const t = run.ticks.find((x) => x.at >= healthyFrom && x.shares.provider_A! >= share);
  return t === undefined ? null : t.at - healthyFrom;
}

function expectLeftUnderTheCap(run: TIssueRun): void {
  const cap = run.policy.safety.max_traffic_shift_per_minute;
  expect(Math.min(...run.ticks.filter((t) => t.at < healthyFrom).map((t) => t.shares.provider_A!))).toBeLessThanOrEqual(0.02);
  expect(worstMinuteMove(run.ticks)).toBeLessThanOrEqual(cap + 1e-9);
}

function expectGradualFailback(run: TIssueRun): void {
  const types = run.events.filter((e) => e.provider === "provider_A").map((e) => e.type);
  expect(types).toContain("recovery_detected");
  expect(types).toContain("full_failback_completed");
  // Gradual: A passes through intermediate shares, never more than the cap in any minute (checked above).
  const mid = run.ticks.filter((t) => t.at >= healthyFrom && t.shares.provider_A! > 0.2 && t.shares.provider_A! < 0.8);
  expect(mid.length).toBeGreaterThanOrEqual(2);
}

describe("issue 42: a recovered primary gets its traffic back at ordinary volumes", { timeout: 60_000 }, () => {
  const cooldownMs = 300_000;

  it("at 10 decisions/s: leaves A under the cap, and A is back at 90% within the cooldown plus 10 minutes, gradually", () => {
    const run = runIssue42({ perSecond: 10, healthySeconds: HEALTHY_S, degradedSeconds: DEGRADED_S, afterSeconds: 20 * 60 });
    expectLeftUnderTheCap(run);
    const back = backAfter(run, 0.9);
    expect(back).not.toBeNull();
    expect(back!).toBeLessThanOrEqual(cooldownMs + 10 * MINUTE);
    expectGradualFailback(run);
    expect(shareA(run, healthyFrom + 20 * MINUTE - 1)).toBeGreaterThanOrEqual(0.9);
  });

  it("at 1 decision/s: A is back at 90% within the cooldown plus 30 minutes, gradually", () => {
    const run = runIssue42({ perSecond: 1, healthySeconds: HEALTHY_S, degradedSeconds: DEGRADED_S, afterSeconds: 40 * 60 });
    expectLeftUnderTheCap(run);
    const back = backAfter(run, 0.9);
    expect(back).not.toBeNull();
    expect(back!).toBeLessThanOrEqual(cooldownMs + 30 * MINUTE);
    expectGradualFailback(run);
  });

  it.each([10, 1])("at %i decisions/s, a provider still failing every fifth call is not brought back, and its probing stays in budget", (perSecond) => {
    const run = runIssue42({ perSecond, healthySeconds: HEALTHY_S, degradedSeconds: DEGRADED_S, afterSeconds: 30 * 60, stillFailing: true });
    const budget = ROUTING_DEFAULTS.recoveryProbeShare;
    const types = run.events.filter((e) => e.provider === "provider_A").map((e) => e.type);
    expect(types).not.toContain("failback_step");
    expect(types).not.toContain("full_failback_completed");
    const after = run.ticks.filter((t) => t.at >= healthyFrom);
    // Planned: never above the recovery probe budget.
    expect(Math.max(...after.map((t) => t.shares.provider_A!))).toBeLessThanOrEqual(budget + 1e-9);
    // Served: over the 30 minutes, A took no more than the probe floor's share plus the occasional probing.
    const served = run.decisions.filter((d) => d.at >= healthyFrom);
    const toA = served.filter((d) => d.a).length / served.length;
    expect(toA).toBeLessThanOrEqual(0.05);
  });
});
