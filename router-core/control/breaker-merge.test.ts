import { describe, expect, it } from "vitest";
import { breakerView, createCircuitBreaker } from "./circuit-breaker";
import { mergeBreakerState, withClusterProbeSuccesses, withProbeSlots } from "./breaker-merge";

const m = createCircuitBreaker({ consecutive_failures: 2, open_seconds: 10, half_open_probes: 5, half_open_successes_to_close: 3 });
const failures = (n: number, at: number) => {
  let s = m.initial(0);
  for (let i = 0; i < n; i++) s = m.step(s, { type: "failure" }, at + i);
  return s;
};

describe("mergeBreakerState", () => {
  it("takes the state whose transition is later, and keeps the local one on a tie", () => {
    const closed = m.initial(0);
    const opened = failures(2, 1_000);
    expect(opened.state).toBe("open");
    const merged = mergeBreakerState(closed, opened);
    expect(merged).toMatchObject({ state: "open", since: opened.since, openedAt: opened.openedAt, openUntil: opened.openUntil });
    // An opening this instance has not seen starts without probe slots of its own.
    expect(merged.probeLimit).toBe(0);
    expect(breakerView(merged, 20_000).probeAvailable).toBe(false);
    expect(mergeBreakerState(opened, closed)).toBe(opened);
    expect(mergeBreakerState(opened, { ...opened })).toBe(opened);
  });
});

describe("withProbeSlots", () => {
  it("limits the probes one instance may start; a closed breaker is untouched", () => {
    const opened = withProbeSlots(failures(2, 1_000), 0);
    expect(breakerView(opened, 20_000).probeAvailable).toBe(false);
    const one = withProbeSlots(opened, 1);
    expect(breakerView(one, 20_000).probeAvailable).toBe(true);
    const used = m.step(one, { type: "probe_started" }, 20_000);
    expect(breakerView(used, 20_001).probeAvailable).toBe(false);
    const closed = m.initial(0);
    expect(withProbeSlots(closed, 0)).toBe(closed);
  });
});

describe("withClusterProbeSuccesses", () => {
  it("closes a half-open breaker once the cluster's successes reach the threshold", () => {
    const half = m.step(failures(2, 1_000), { type: "probe_started" }, 20_000);
    expect(half.state).toBe("half_open");
    const two = withClusterProbeSuccesses(m, half, 2, 20_100);
    expect(two.state).toBe("half_open");
    expect(two.probeSuccesses).toBe(2);
    const three = withClusterProbeSuccesses(m, two, 3, 20_200);
    expect(three.state).toBe("closed");
    expect(three.history.at(-1)?.reason).toBe("probe_successes");
    // Fewer successes than already counted, or a breaker that is not half-open: nothing changes.
    expect(withClusterProbeSuccesses(m, two, 1, 20_300)).toBe(two);
    expect(withClusterProbeSuccesses(m, three, 9, 20_300)).toBe(three);
  });
});
