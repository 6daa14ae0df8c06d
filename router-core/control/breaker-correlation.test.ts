import { describe, expect, it } from "vitest";
import {
  correlateRegionalBreakers,
  DEFAULT_BREAKER_CORRELATION,
  extendFailureRun,
  findCorrelation,
  NO_FAILURE_RUN,
  releaseHeldBreakers,
  resolveBreakerCorrelation,
} from "./breaker-correlation";
import { breakerView, createCircuitBreaker, type TBreakerEvent, type TCircuitBreakerState } from "./circuit-breaker";

const SEC = 1_000;
const breaker = createCircuitBreaker();
const cfg = DEFAULT_BREAKER_CORRELATION;
const fail: TBreakerEvent = { type: "failure" };
const ok: TBreakerEvent = { type: "success" };

/** One provider's breakers in EU, NA, APAC; each event goes through the breaker and then the correlation, as the router wires it. */
function group({ trackRun = true } = {}) {
  let states: readonly TCircuitBreakerState[] = [0, 1, 2].map(() => breaker.initial(0));
  let run = NO_FAILURE_RUN;
  return {
    get: () => states,
    run: () => run,
    event(region: number, e: TBreakerEvent, now: number) {
      const before = states;
      const stepped = states.map((s, i) => (i === region ? breaker.step(s, e, now) : s));
      if (trackRun) run = extendFailureRun(run, region, e.type === "success");
      states = correlateRegionalBreakers(releaseHeldBreakers(before, stepped, now, cfg), now, breaker, cfg, run);
    },
    times(region: number, e: TBreakerEvent, n: number, now: number) {
      for (let i = 0; i < n; i++) this.event(region, e, now);
    },
  };
}

describe("breaker correlation config", () => {
  it("defaults and names bad values", () => {
    expect(resolveBreakerCorrelation()).toEqual({ min_regions: 2, window_seconds: 120, suspect_consecutive_failures: 2 });
    expect(() => resolveBreakerCorrelation({ min_regions: 1 })).toThrow("min_regions must be 0 (off) or at least 2, got 1");
    expect(() => resolveBreakerCorrelation({ suspect_consecutive_failures: 0 })).toThrow("suspect_consecutive_failures must be in [1, inf), got 0");
  });
});

describe("regional breakers of one provider", () => {
  // The first three cases isolate the opened-breaker rules: no run is tracked, as if every failure had successes elsewhere between it.
  it("a regional failure stays regional: one failure elsewhere, or failures long after the opening, trip nothing", () => {
    const g = group({ trackRun: false });
    g.times(0, fail, 5, 1 * SEC);
    expect(g.get()[0]!.state).toBe("open");
    g.event(1, fail, 10 * SEC);
    g.event(1, ok, 11 * SEC);
    g.event(1, fail, 12 * SEC);
    expect(g.get()[1]!.state).toBe("closed");
    // Past the window the other regions are back to the configured five.
    g.times(2, fail, 4, 200 * SEC);
    expect(g.get()[2]!.state).toBe("closed");
  });

  it("with one region open, another opens on two consecutive failures inside the window", () => {
    const g = group({ trackRun: false });
    g.times(0, fail, 5, 1 * SEC);
    g.times(1, fail, 2, 30 * SEC);
    const na = g.get()[1]!;
    expect(na.state).toBe("open");
    expect(na.history.at(-1)).toMatchObject({ from: "closed", to: "open", reason: "correlated_failures" });
  });

  it("with two regions open the failure is provider-wide: the third opens on its first failure, and one region probes for all", () => {
    const g = group({ trackRun: false });
    g.times(0, fail, 5, 1 * SEC);
    g.times(1, fail, 2, 2 * SEC);
    g.event(2, fail, 3 * SEC);
    expect(g.get().map((s) => s.state)).toEqual(["open", "open", "open"]);
    expect(findCorrelation(g.get(), cfg)).toEqual({ lead: 0, members: [0, 1, 2] });
    // The lead half-opens on its own schedule (30 s); the others wait a period of the lead's (30 s) after that.
    expect(breakerView(g.get()[0]!, 31 * SEC).state).toBe("half_open");
    expect(breakerView(g.get()[1]!, 31 * SEC).state).toBe("open");
    expect(breakerView(g.get()[2]!, 59 * SEC).state).toBe("open");
    // The lead's probe fails: it reopens for 60 s and the others' wait follows it, a 60 s period later.
    g.event(0, fail, 31 * SEC);
    expect(g.get()[0]!.openUntil).toBe(91 * SEC);
    expect(g.get()[1]!.openUntil).toBe(151 * SEC);
    expect(g.get()[2]!.openUntil).toBe(151 * SEC);
    // The lead's probes succeed: it closes and the others half-open at once.
    g.times(0, ok, 3, 92 * SEC);
    expect(g.get()[0]!.state).toBe("closed");
    expect(breakerView(g.get()[1]!, 92 * SEC).state).toBe("half_open");
    expect(breakerView(g.get()[2]!, 92 * SEC).state).toBe("half_open");
    // From here each region is on its own: NA still failing reopens on its own backoff, APAC is not held for it.
    g.event(1, fail, 93 * SEC);
    expect(g.get()[1]!.openUntil).toBe(153 * SEC);
    expect(breakerView(g.get()[2]!, 93 * SEC).state).toBe("half_open");
  });

  it("failures with successes elsewhere in between: EU trips on five, NA on two, APAC on one, and only EU probes", () => {
    const g = group();
    for (let i = 0; i < 5; i++) {
      g.event(0, fail, 1 * SEC);
      if (i < 4) g.event(2, ok, 1 * SEC);
    }
    expect(g.get().map((s) => s.state)).toEqual(["open", "closed", "closed"]);
    g.event(2, ok, 2 * SEC);
    g.times(1, fail, 2, 17 * SEC);
    g.event(2, fail, 49 * SEC);
    expect(g.get().map((s) => s.history.at(-1)?.reason)).toEqual(["consecutive_failures", "correlated_failures", "correlated_failures"]);
    g.event(0, fail, 60 * SEC);
    const [eu, na, apac] = g.get();
    expect(eu!.openUntil).toBe(120 * SEC);
    expect(na!.openUntil).toBe(180 * SEC);
    expect(apac!.openUntil).toBe(180 * SEC);
  });

  it("a run of five failures with no success anywhere opens every region at once, as one provider-wide breaker would", () => {
    const g = group();
    [0, 1, 0, 2, 1].forEach((r, i) => g.event(r, fail, (1 + i) * SEC));
    expect(g.run()).toEqual({ failures: 5, regions: [0, 1, 2] });
    expect(g.get().map((s) => s.state)).toEqual(["open", "open", "open"]);
    expect(g.get()[0]!.history.at(-1)).toMatchObject({ reason: "correlated_failures" });
    expect(g.get()[0]!.history.at(-1)!.detail).toContain("5 consecutive failures in 3 region(s), no success in any region");
    // One region probes for all.
    const c = findCorrelation(g.get(), cfg)!;
    expect(c.members).toEqual([0, 1, 2]);
    expect(
      g
        .get()
        .filter((s, i) => i !== c.lead)
        .every((s) => s.openUntil === 65 * SEC),
    ).toBe(true);
  });

  it("any success ends the run: a failing region among answering ones keeps its failure to itself", () => {
    const g = group();
    for (let i = 0; i < 4; i++) {
      g.event(0, fail, (1 + i) * SEC);
      g.event(1, ok, (1 + i) * SEC);
    }
    expect(g.run()).toEqual({ failures: 0, regions: [] });
    g.event(0, fail, 6 * SEC);
    expect(g.get().map((s) => s.state)).toEqual(["open", "closed", "closed"]);
  });

  it("a run inside one region presumes a provider-wide failure and tests it first with a region that has not failed", () => {
    // EU's first five calls fail before any other region calls: the run opens everything, NA leads.
    const tested = group();
    tested.times(0, fail, 5, 1 * SEC);
    expect(tested.get().map((s) => s.state)).toEqual(["open", "open", "open"]);
    expect(findCorrelation(tested.get(), cfg)!.lead).toBe(1);
    expect(breakerView(tested.get()[1]!, 31 * SEC).state).toBe("half_open");
    expect(breakerView(tested.get()[0]!, 31 * SEC).state).toBe("open");
    // NA answers: it closes, and EU and APAC half-open at once and probe for themselves; EU still fails and reopens alone.
    tested.event(1, { type: "probe_started" }, 31 * SEC);
    tested.times(1, ok, 3, 31 * SEC);
    expect(tested.get()[1]!.state).toBe("closed");
    expect(breakerView(tested.get()[2]!, 31 * SEC).state).toBe("half_open");
    tested.times(2, ok, 3, 32 * SEC);
    tested.event(0, fail, 32 * SEC);
    expect(tested.get().map((s) => s.state)).toEqual(["open", "closed", "closed"]);

    // The same start in a provider-wide outage: NA's probe fails too, and NA goes on probing for all.
    const wide = group();
    wide.times(0, fail, 5, 1 * SEC);
    wide.event(1, fail, 31 * SEC);
    expect(findCorrelation(wide.get(), cfg)!.lead).toBe(1);
    const na = wide.get()[1]!;
    expect(na.openUntil).toBe(91 * SEC);
    expect(wide.get()[0]!.openUntil).toBe(151 * SEC);
    expect(wide.get()[2]!.openUntil).toBe(151 * SEC);
  });

  it("turned off with min_regions 0", () => {
    const off = resolveBreakerCorrelation({ min_regions: 0 });
    let states: readonly TCircuitBreakerState[] = [0, 1].map(() => breaker.initial(0));
    for (let i = 0; i < 5; i++) states = [breaker.step(states[0]!, fail, SEC), states[1]!];
    states = [states[0]!, breaker.step(breaker.step(states[1]!, fail, 2 * SEC), fail, 2 * SEC)];
    expect(correlateRegionalBreakers(states, 2 * SEC, breaker, off)).toBe(states);
  });
});
