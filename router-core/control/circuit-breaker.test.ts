import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { breakerKey, breakerView, createCircuitBreaker, restoreBreakerState, type TBreakerEvent, type TCircuitBreakerState } from "./circuit-breaker";

const SEC = 1_000;
const fail: TBreakerEvent = { type: "failure" };
const ok: TBreakerEvent = { type: "success" };
const probe: TBreakerEvent = { type: "probe_started" };

function feed(breaker: ReturnType<typeof createCircuitBreaker>, s: TCircuitBreakerState, events: TBreakerEvent[], now: number) {
  return events.reduce((acc, e) => breaker.step(acc, e, now), s);
}

describe("config", () => {
  it("defaults to the token-gateway article's thresholds (docs/references.md)", () => {
    expect(createCircuitBreaker().config).toEqual({
      consecutive_failures: 5,
      failure_rate_threshold: 0.3,
      window_seconds: 300,
      min_calls: 20,
      open_seconds: 30,
      max_open_seconds: 600,
      backoff_multiplier: 2,
      half_open_probes: 5,
      half_open_successes_to_close: 3,
    });
  });

  it("names the option and the value", () => {
    expect(() => createCircuitBreaker({ consecutive_failures: 0 })).toThrow(new RangeError("consecutive_failures must be in [1, inf), got 0"));
    expect(() => createCircuitBreaker({ failure_rate_threshold: 1.2 })).toThrow("failure_rate_threshold must be in (0, 1], got 1.2");
    expect(() => createCircuitBreaker({ min_calls: 2.5 })).toThrow("min_calls must be an integer, got 2.5");
    expect(() => createCircuitBreaker({ open_seconds: 60, max_open_seconds: 30 })).toThrow("max_open_seconds must be in [60, inf), got 30");
    expect(() => createCircuitBreaker({ backoff_multiplier: 0.5 })).toThrow("backoff_multiplier must be in [1, inf), got 0.5");
    expect(() => createCircuitBreaker({ half_open_successes_to_close: 6 })).toThrow("half_open_successes_to_close must be in [1, 5], got 6");
    expect(() => createCircuitBreaker({ window_seconds: Number.NaN })).toThrow("window_seconds must be a finite number in (0, inf), got NaN");
  });
});

describe("closed → open", () => {
  const breaker = createCircuitBreaker();

  it("opens on 5 consecutive failures and a success resets the run", () => {
    let s = feed(breaker, breaker.initial(0), [fail, fail, fail, fail, ok, fail, fail, fail, fail], SEC);
    expect(s.state).toBe("closed");
    s = breaker.step(s, { type: "failure", detail: "HTTP 503" }, 2 * SEC);
    expect(s.state).toBe("open");
    expect(s.history).toEqual([
      { from: "closed", to: "open", reason: "consecutive_failures", at: 2 * SEC, detail: "5 consecutive failures (last: HTTP 503); open for 30 s (opening 1)" },
    ]);
    expect(breakerView(s, 3 * SEC)).toEqual({ state: "open", probeAvailable: false, openedAt: 2 * SEC, nextAttemptAt: 32 * SEC });
  });

  it("opens when more than 30% of at least 20 calls in the window failed", () => {
    // 14 successes, 6 failures interleaved: 30% exactly stays closed, the 7th failure opens it.
    let s = breaker.initial(0);
    const pattern = [ok, ok, fail, ok, ok, fail, ok, ok, fail, ok, ok, fail, ok, ok, fail, ok, ok, fail, ok, ok];
    s = pattern.reduce((acc, e, i) => breaker.step(acc, e, i * SEC), s);
    expect(s.state).toBe("closed");
    s = breaker.step(s, fail, 21 * SEC);
    expect(s.state).toBe("open");
    expect(s.history[0]?.reason).toBe("failure_rate");
    expect(s.history[0]?.detail).toContain("failure rate 33.3% > 30.0% over 21 calls in 300 s");
  });

  it("needs min_calls before the rate counts", () => {
    const s = feed(breaker, breaker.initial(0), [fail, ok, fail, ok, fail, ok, fail, ok], SEC);
    expect(s.state).toBe("closed");
  });

  it("forgets outcomes older than the window", () => {
    let s = breaker.initial(0);
    for (let i = 0; i < 19; i++) s = breaker.step(s, i % 3 === 0 ? fail : ok, 0);
    s = breaker.step(s, ok, 301 * SEC);
    s = breaker.step(s, fail, 301 * SEC);
    expect(s.state).toBe("closed");
    expect(s.buckets.reduce((n, b) => n + b.successes + b.failures, 0)).toBe(2);
  });
});

describe("open → half_open → closed | open", () => {
  const breaker = createCircuitBreaker();
  const opened = () => feed(breaker, breaker.initial(0), [fail, fail, fail, fail, fail], 0);

  it("reports half_open with a free probe once the open time is up, before any event arrives", () => {
    const s = opened();
    expect(breakerView(s, 29_999).state).toBe("open");
    expect(breakerView(s, 30 * SEC)).toEqual({ state: "half_open", probeAvailable: true, openedAt: 0, nextAttemptAt: 30 * SEC });
  });

  it("lets half_open_probes probes through and closes after enough successes", () => {
    let s = breaker.step(opened(), probe, 31 * SEC);
    expect(s.state).toBe("half_open");
    expect(s.history.at(-1)).toMatchObject({ from: "open", to: "half_open", reason: "open_elapsed", at: 30 * SEC });
    s = feed(breaker, s, [probe, probe, probe, probe], 31 * SEC);
    expect(breakerView(s, 31 * SEC)).toMatchObject({ state: "half_open", probeAvailable: false });
    s = feed(breaker, s, [ok, ok], 32 * SEC);
    expect(s.state).toBe("half_open");
    s = breaker.step(s, ok, 33 * SEC);
    expect(s.state).toBe("closed");
    expect(s.history.at(-1)).toMatchObject({ from: "half_open", to: "closed", reason: "probe_successes" });
    expect(breakerView(s, 33 * SEC)).toEqual({ state: "closed", probeAvailable: false });
  });

  it("re-opens on a probe failure for longer each time, up to the cap", () => {
    const b = createCircuitBreaker({ open_seconds: 100, max_open_seconds: 350, backoff_multiplier: 2 });
    let s = feed(b, b.initial(0), [fail, fail, fail, fail, fail], 0);
    const durations: number[] = [];
    for (let i = 0; i < 4; i++) {
      durations.push(((s.openUntil ?? 0) - (s.openedAt ?? 0)) / SEC);
      const t = s.openUntil ?? 0;
      s = b.step(s, probe, t);
      s = b.step(s, fail, t + 1);
      expect(s.history.at(-1)?.reason).toBe("probe_failure");
    }
    expect(durations).toEqual([100, 200, 350, 350]);
  });

  it("earns a fresh backoff after a full window closed", () => {
    const b = createCircuitBreaker({ open_seconds: 10, backoff_multiplier: 3, half_open_probes: 1, half_open_successes_to_close: 1 });
    const five = [fail, fail, fail, fail, fail];
    let s = feed(b, b.initial(0), five, 0);
    s = b.step(s, ok, 10 * SEC);
    expect(s.state).toBe("closed");
    const quick = feed(b, s, five, 20 * SEC);
    expect((quick.openUntil ?? 0) - (quick.openedAt ?? 0)).toBe(30 * SEC);
    const later = feed(b, s, five, 400 * SEC);
    expect((later.openUntil ?? 0) - (later.openedAt ?? 0)).toBe(10 * SEC);
  });

  it("ignores stragglers that started before the current state", () => {
    let s = breaker.step(opened(), probe, 30 * SEC);
    s = breaker.step(s, { type: "failure", startedAt: 1 * SEC }, 31 * SEC);
    expect(s.state).toBe("half_open");
    s = breaker.step(s, { type: "failure", startedAt: 30 * SEC }, 31 * SEC);
    expect(s.state).toBe("open");
  });

  it("frees probe slots whose outcome never arrived after open_seconds", () => {
    let s = feed(breaker, opened(), [probe, probe, probe, probe, probe], 30 * SEC);
    expect(breakerView(s, 59 * SEC)).toMatchObject({ probeAvailable: false, nextAttemptAt: 60 * SEC });
    expect(breakerView(s, 60 * SEC).probeAvailable).toBe(true);
    s = breaker.step(s, probe, 60 * SEC);
    expect(s.probesStarted).toBe(1);
  });

  it("keeps a bounded history", () => {
    const b = createCircuitBreaker({
      consecutive_failures: 1,
      half_open_probes: 1,
      half_open_successes_to_close: 1,
      open_seconds: 1,
      backoff_multiplier: 1,
    });
    let s = b.initial(0);
    for (let i = 0; i < 100; i++) s = b.step(b.step(s, fail, i * 10 * SEC), ok, i * 10 * SEC + 5 * SEC);
    expect(s.history).toHaveLength(50);
  });
});

describe("serialisation and keys", () => {
  it("round-trips through JSON", () => {
    const b = createCircuitBreaker();
    const s = feed(b, b.initial(0), [fail, ok, fail, fail, fail, fail, fail], SEC);
    const restored = restoreBreakerState(JSON.parse(JSON.stringify(s)));
    expect(restored).toEqual(s);
    expect(b.step(restored, probe, 40 * SEC)).toEqual(b.step(s, probe, 40 * SEC));
  });

  it("restore names the field that does not fit", () => {
    const b = createCircuitBreaker();
    const json = JSON.parse(JSON.stringify(b.initial(0)));
    expect(() => restoreBreakerState({ ...json, state: "ajar" })).toThrow('breaker.state must be one of closed, open, half_open, got "ajar"');
    expect(() => restoreBreakerState(null)).toThrow("breaker must be an object, got null");
  });

  it("keys per provider or per provider and region", () => {
    expect(breakerKey("twilio")).toBe("twilio");
    expect(breakerKey("twilio", "IN")).toBe("twilio|IN");
  });
});

describe("state machine (fast-check)", () => {
  const EDGES = new Set(["closed>open", "open>half_open", "half_open>closed", "half_open>open"]);
  const arbEvent = fc.oneof(
    fc.constant<TBreakerEvent>(ok),
    fc.constant<TBreakerEvent>(fail),
    fc.constant<TBreakerEvent>(probe),
    fc.constant<TBreakerEvent>({ type: "tick" }),
  );
  const arbConfig = fc.record({
    consecutive_failures: fc.integer({ min: 1, max: 6 }),
    min_calls: fc.integer({ min: 1, max: 30 }),
    failure_rate_threshold: fc.double({ min: 0.05, max: 1, noNaN: true }),
    open_seconds: fc.integer({ min: 1, max: 60 }),
    half_open_probes: fc.integer({ min: 3, max: 6 }),
    half_open_successes_to_close: fc.integer({ min: 1, max: 3 }),
  });

  it("moves only along closed→open, open→half_open, half_open→closed, half_open→open, and the view agrees", () => {
    fc.assert(
      fc.property(arbConfig, fc.array(fc.tuple(arbEvent, fc.integer({ min: 0, max: 90_000 })), { maxLength: 200 }), (config, steps) => {
        const b = createCircuitBreaker({ ...config, max_open_seconds: 600 });
        let s = b.initial(0);
        let now = 0;
        for (const [event, dt] of steps) {
          now += dt;
          const next = b.step(s, event, now);
          // History is capped, so find where the old tail sits in the new one.
          const last = s.history.at(-1);
          const added = last === undefined ? next.history : next.history.slice(next.history.indexOf(last) + 1);
          let from = s.state;
          for (const t of added) {
            expect(t.from).toBe(from);
            expect(EDGES.has(`${t.from}>${t.to}`)).toBe(true);
            from = t.to;
          }
          expect(next.state).toBe(from);
          const view = breakerView(next, now);
          if (view.state === "closed") expect(view.probeAvailable).toBe(false);
          if (view.state === "open") expect(view.nextAttemptAt).toBeGreaterThan(now);
          expect(next.probesStarted).toBeLessThanOrEqual(next.probeLimit);
          s = next;
        }
      }),
      { numRuns: 300 },
    );
  });
});
