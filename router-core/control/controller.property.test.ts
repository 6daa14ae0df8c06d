import fc from "fast-check";
import { describe, expect, it } from "vitest";
import {
  CONTROLLER_EVENT_TYPES,
  createControllerState,
  restoreControllerState,
  stepController,
  type TControllerCandidate,
  type TControllerConfig,
} from "./controller";

const TOLERANCE = 1e-9;
const PROVIDERS = ["A", "B", "C", "D", "E"];
const BREAKER = "circuit_breaker_closed";
/** Excluded by its breaker alone: keeps a planned share that moves at the capped rate. */
const breakerOnly = (c: TControllerCandidate) => !c.eligible && c.failedGates?.length === 1 && c.failedGates[0] === BREAKER;

const arbConfig = fc.integer({ min: 1, max: 5 }).chain((n) =>
  fc.record({
    priority: fc.constant(PROVIDERS.slice(0, n)),
    hysteresis_score_margin: fc.double({ min: 0, max: 20, noNaN: true }),
    safety: fc.record({
      max_traffic_shift_per_minute: fc.double({ min: 0.01, max: 1, noNaN: true }),
      primary_probe_share: n === 1 ? fc.constant(0) : fc.double({ min: 0, max: Math.min(0.5, 0.99 / (n - 1)), noNaN: true }),
      primary_recovery_cooldown_seconds: fc.integer({ min: 0, max: 600 }),
    }),
    min_sample_size: fc.integer({ min: 0, max: 500 }),
  }),
);

const arbCandidate = (provider: string) =>
  fc.record({
    provider: fc.constant(provider),
    eligible: fc.oneof({ arbitrary: fc.constant(true), weight: 3 }, { arbitrary: fc.constant(false), weight: 1 }),
    score: fc.option(fc.double({ min: 0, max: 100, noNaN: true }), { nil: null, freq: 8 }),
    sampleCount: fc.integer({ min: 0, max: 2_000 }),
    failedGates: fc.constantFrom([], [BREAKER], [BREAKER], ["quota_available"], [BREAKER, "quota_available"]),
  });

const arbTicks = (priority: readonly string[]) =>
  fc.array(
    fc.record({
      dtMs: fc.integer({ min: 0, max: 180_000 }),
      candidates: fc.tuple(...priority.map(arbCandidate)),
    }),
    { minLength: 1, maxLength: 60 },
  );

const arbRun = arbConfig.chain((config) => fc.tuple(fc.constant(config), arbTicks(config.priority)));

function run(
  config: TControllerConfig,
  ticks: { dtMs: number; candidates: TControllerCandidate[] }[],
  check: (tick: {
    before: Record<string, number>;
    after: Record<string, number>;
    leaderAfter: string | null;
    candidates: TControllerCandidate[];
    budget: number;
    events: ReturnType<typeof stepController>["events"];
  }) => void,
) {
  let state = createControllerState("op", "r", config, 0);
  let now = 0;
  for (const tick of ticks) {
    now += tick.dtMs;
    const candidates = tick.candidates.map((c) => (c.eligible ? { ...c, failedGates: [] } : c));
    const result = stepController(state, { candidates }, config, now);
    check({
      before: state.shares,
      after: result.shares,
      leaderAfter: result.state.leader,
      candidates,
      budget: Math.min(1, (config.safety.max_traffic_shift_per_minute * tick.dtMs) / 60_000),
      events: result.events,
    });
    state = result.state;
  }
}

const sum = (shares: Record<string, number>) => Object.values(shares).reduce((a, b) => a + b, 0);

describe("controller invariants (fast-check)", () => {
  it("shares are >= 0 and sum to 1; with nobody eligible they are kept", () => {
    fc.assert(
      fc.property(arbRun, ([config, ticks]) => {
        run(config, ticks, ({ before, after, candidates }) => {
          for (const v of Object.values(after)) expect(v).toBeGreaterThanOrEqual(0);
          expect(Math.abs(sum(after) - 1)).toBeLessThan(TOLERANCE);
          if (!candidates.some((c) => c.eligible)) expect(after).toEqual(before);
        });
      }),
      { numRuns: 300 },
    );
  });

  it("apart from hard exclusions, no tick moves more share than the pro-rated cap, breaker exclusions included", () => {
    fc.assert(
      fc.property(arbRun, ([config, ticks]) => {
        run(config, ticks, ({ before, after, budget, events }) => {
          const exclusions = events.filter((e) => e.type === "hard_exclusion");
          const afterExclusion = exclusions.at(-1)?.shares.to ?? before;
          let lost = 0;
          let gained = 0;
          for (const p of Object.keys(after)) {
            const delta = (after[p] ?? 0) - (afterExclusion[p] ?? 0);
            expect(Math.abs(delta)).toBeLessThanOrEqual(budget + TOLERANCE);
            if (delta < 0) lost -= delta;
            else gained += delta;
          }
          expect(lost).toBeLessThanOrEqual(budget + TOLERANCE);
          expect(gained).toBeLessThanOrEqual(budget + TOLERANCE);
        });
      }),
      { numRuns: 300 },
    );
  });

  it("providers failing a hard gate other than their breaker alone hold no share after a tick in which someone is eligible", () => {
    fc.assert(
      fc.property(arbRun, ([config, ticks]) => {
        run(config, ticks, ({ after, candidates }) => {
          if (!candidates.some((c) => c.eligible)) return;
          for (const c of candidates) if (!c.eligible && !breakerOnly(c)) expect(after[c.provider]).toBe(0);
        });
      }),
      { numRuns: 300 },
    );
  });

  it("a provider excluded only by its breaker never leads and never gains beyond the probe floor", () => {
    fc.assert(
      fc.property(arbRun, ([config, ticks]) => {
        const probe = config.safety.primary_probe_share;
        run(config, ticks, ({ before, after, leaderAfter, candidates }) => {
          if (!candidates.some((c) => c.eligible)) return;
          for (const c of candidates.filter(breakerOnly)) {
            expect(leaderAfter).not.toBe(c.provider);
            const b = before[c.provider] ?? 0;
            const a = after[c.provider] ?? 0;
            if (a > b + TOLERANCE) expect(a).toBeLessThanOrEqual(probe + TOLERANCE);
          }
        });
      }),
      { numRuns: 300 },
    );
  });

  it("the probe floor holds while eligible or excluded only by its breaker: such a non-leader at or above the floor does not drop below it", () => {
    fc.assert(
      fc.property(arbRun, ([config, ticks]) => {
        const probe = config.safety.primary_probe_share;
        run(config, ticks, ({ before, after, leaderAfter, candidates }) => {
          if (!candidates.some((c) => c.eligible)) return;
          for (const c of candidates) {
            if (!(c.eligible || breakerOnly(c)) || c.provider === leaderAfter) continue;
            if ((before[c.provider] ?? 0) >= probe - TOLERANCE) expect(after[c.provider] ?? 0).toBeGreaterThanOrEqual(probe - TOLERANCE);
          }
        });
      }),
      { numRuns: 300 },
    );
  });

  it("events use the closed set of types and report shares that sum to 1", () => {
    fc.assert(
      fc.property(arbRun, ([config, ticks]) => {
        run(config, ticks, ({ events }) => {
          for (const e of events) {
            expect(CONTROLLER_EVENT_TYPES).toContain(e.type);
            expect(Math.abs(sum(e.shares.to) - 1)).toBeLessThan(TOLERANCE);
          }
        });
      }),
      { numRuns: 200 },
    );
  });

  it("is deterministic and survives a JSON round trip at every tick", () => {
    fc.assert(
      fc.property(arbRun, ([config, ticks]) => {
        let state = createControllerState("op", null, config, 0);
        let now = 0;
        for (const tick of ticks) {
          now += tick.dtMs;
          const input = { candidates: tick.candidates };
          const direct = stepController(state, input, config, now);
          const viaJson = stepController(restoreControllerState(JSON.parse(JSON.stringify(state))), input, config, now);
          expect(viaJson).toEqual(direct);
          state = direct.state;
        }
      }),
      { numRuns: 150 },
    );
  });
});
