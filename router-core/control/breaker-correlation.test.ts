import { describe, expect, it } from "vitest";
import {
  correlateRegionalBreakers,
  DEFAULT_BREAKER_CORRELATION,
  findCorrelation,
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
function group() {
  let states: readonly TCircuitBreakerState[] = [0, 1, 2].map(() => breaker.initial(0));
  return {
    get: () => states,
    event(region: number, e: TBreakerEvent, now: number) {
      const before = states;
      const stepped = states.map((s, i) => (i === region ? breaker.step(s, e, now) : s));
      states = correlateRegionalBreakers(releaseHeldBreakers(before, stepped, now, cfg), now, breaker, cfg);
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
  it("a regional failure stays regional: one failure elsewhere, or failures long after the opening, trip nothing", () => {
    const g = group();
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
    const g = group();
    g.times(0, fail, 5, 1 * SEC);
    g.times(1, fail, 2, 30 * SEC);
    const na = g.get()[1]!;
    expect(na.state).toBe("open");
    expect(na.history.at(-1)).toMatchObject({ from: "closed", to: "open", reason: "correlated_failures" });
  });

  it("with two regions open the failure is provider-wide: the third opens on its first failure, and one region probes for all", () => {
    const g = group();
    g.times(0, fail, 5, 1 * SEC);
    g.times(1, fail, 2, 2 * SEC);
    g.event(2, fail, 3 * SEC);
    expect(g.get().map((s) => s.state)).toEqual(["open", "open", "open"]);
    expect(findCorrelation(g.get(), cfg)).toEqual({ lead: 0, members: [0, 1, 2] });
    // The lead half-opens on its own schedule (30 s); the others wait until 30 s after that.
    expect(breakerView(g.get()[0]!, 31 * SEC).state).toBe("half_open");
    expect(breakerView(g.get()[1]!, 31 * SEC).state).toBe("open");
    expect(breakerView(g.get()[2]!, 59 * SEC).state).toBe("open");
    // The lead's probe fails: it reopens for 60 s and the others' wait follows it.
    g.event(0, fail, 31 * SEC);
    expect(g.get()[0]!.openUntil).toBe(91 * SEC);
    expect(g.get()[1]!.openUntil).toBe(121 * SEC);
    expect(g.get()[2]!.openUntil).toBe(121 * SEC);
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

  it("the replay's complete outage, in order: EU trips on five, NA on two, APAC on one, and only EU probes", () => {
    const g = group();
    g.times(0, fail, 5, 1 * SEC);
    g.times(1, fail, 2, 17 * SEC);
    g.event(2, fail, 49 * SEC);
    expect(g.get().map((s) => s.history.at(-1)?.reason)).toEqual(["consecutive_failures", "correlated_failures", "correlated_failures"]);
    g.event(0, fail, 60 * SEC);
    const [eu, na, apac] = g.get();
    expect(eu!.openUntil).toBe(120 * SEC);
    expect(na!.openUntil).toBe(150 * SEC);
    expect(apac!.openUntil).toBe(150 * SEC);
  });

  it("turned off with min_regions 0", () => {
    const off = resolveBreakerCorrelation({ min_regions: 0 });
    let states: readonly TCircuitBreakerState[] = [0, 1].map(() => breaker.initial(0));
    for (let i = 0; i < 5; i++) states = [breaker.step(states[0]!, fail, SEC), states[1]!];
    states = [states[0]!, breaker.step(breaker.step(states[1]!, fail, 2 * SEC), fail, 2 * SEC)];
    expect(correlateRegionalBreakers(states, 2 * SEC, breaker, off)).toBe(states);
  });
});
