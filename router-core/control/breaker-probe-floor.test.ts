import { describe, expect, it } from "vitest";
import { createSimulatedClock } from "../clock";
import { decide } from "../decision/decide";
import { scoreCandidates } from "../decision/score-candidates";
import type { Random } from "../random";
import { listing1 } from "../replay/suite";
import type { TProviderInfo, TRouterState } from "../types";
import { breakerKey, breakerView, createCircuitBreaker, type TCircuitBreakerState } from "./circuit-breaker";
import { createControllerState, stepController, type TControllerConfig, type TControllerState } from "./controller";

/**
 * The breaker and the controller together, through decide: while the breaker is open decide
 * serves provider A nothing although the controller plans its probe floor for it; once the
 * breaker half-opens, that floor is what sends A exactly its half-open probe calls, and the
 * probe successes close the breaker. Listing 1's safety block (0.50/min, 1% floor).
 */

const policy = listing1();
const REGION = "EU";
const KEY = breakerKey("provider_A", REGION);
const PROVIDERS = ["provider_A", "provider_B", "provider_C"];
const catalogue: TProviderInfo[] = PROVIDERS.map((key) => ({
  key,
  regions: ["*"],
  complianceTags: [],
  costPerRequest: 0.01,
  credentialStatus: "valid",
  enabled: true,
}));
const config: TControllerConfig = {
  priority: PROVIDERS,
  hysteresis_score_margin: policy.hysteresis_score_margin,
  safety: policy.safety,
  min_sample_size: policy.min_sample_size,
};
const breaker = createCircuitBreaker(policy.circuit_breaker);

describe("an open breaker with a probe floor", () => {
  it("serves A nothing while open, keeps the planned floor, and lets exactly the half-open probes through it", () => {
    const clock = createSimulatedClock(0);
    let b: TCircuitBreakerState = breaker.initial(0);
    let controller: TControllerState = { ...createControllerState(policy.operation, REGION, config, 0), probeFloor: ["provider_B", "provider_C"] };
    const routerState = (): TRouterState => ({
      providers: catalogue,
      metrics: {},
      breakers: { [KEY]: breakerView(b, clock.now()) },
      quotas: {},
      shares: controller.shares,
    });
    const tick = () => {
      const candidates = scoreCandidates(policy, routerState(), { region: REGION }, clock).map((c) => ({
        provider: c.provider,
        eligible: c.passedGates,
        score: c.score,
        sampleCount: c.sampleCount,
        failedGates: c.failedGates,
      }));
      const r = stepController(controller, { candidates }, config, clock.now());
      controller = r.state;
      return r.events;
    };
    let u = 0;
    const random: Random = { next: () => u };
    /** Requests spread evenly over the draw space; returns how many went to A. */
    const route = (n: number, onA: () => void = () => {}) => {
      let toA = 0;
      for (let i = 0; i < n; i++) {
        u = (i + 0.5) / n;
        const record = decide({ operation: policy.operation, region: REGION, requestId: `r${clock.now()}-${i}` }, routerState(), policy, clock, random);
        if (record.selected === "provider_A") {
          toA++;
          if (breakerView(b, clock.now()).state === "half_open") b = breaker.step(b, { type: "probe_started" }, clock.now());
          onA();
        }
      }
      return toA;
    };

    for (let i = 0; i < policy.circuit_breaker.consecutive_failures; i++) b = breaker.step(b, { type: "failure" }, 0);
    expect(b.state).toBe("open");

    clock.set(10_000);
    const opening = tick();
    expect(opening[0]).toMatchObject({ type: "circuit_open_shift_to_secondary", provider: "provider_A", capped: true });
    // Planned: A still holds most of the traffic after one capped step; served: none of it.
    expect(controller.shares.provider_A).toBeGreaterThan(0.8);
    expect(route(1_000)).toBe(0);

    // Every 10 s until the planned share has reached the floor: well before the breaker's 30 s.
    let minTo = 0.98;
    for (let t = 20_000; t < 30_000; t += 10_000) {
      clock.set(t);
      tick();
      minTo = Math.min(minTo, controller.shares.provider_A ?? 1);
      expect(route(1_000)).toBe(0);
    }
    expect(minTo).toBeGreaterThan(policy.safety.primary_probe_share);

    // Far enough for the capped movement to finish, still inside a long opening.
    b = { ...b, openUntil: 10 * 60_000 };
    for (let t = 30_000; t <= 5 * 60_000; t += 10_000) {
      clock.set(t);
      tick();
    }
    expect(controller.shares.provider_A).toBeCloseTo(policy.safety.primary_probe_share, 12);
    expect(controller.leader).not.toBe("provider_A");
    expect(route(1_000)).toBe(0);

    // Half-open: the 1% floor sends A requests, and the gate admits exactly half_open_probes of them.
    clock.set(10 * 60_000);
    expect(breakerView(b, clock.now()).state).toBe("half_open");
    expect(route(5_000)).toBe(policy.circuit_breaker.half_open_probes);

    // The probes succeed: the breaker closes and A serves its floor again.
    for (let i = 0; i < policy.circuit_breaker.half_open_successes_to_close; i++) b = breaker.step(b, { type: "success" }, clock.now());
    expect(b.state).toBe("closed");
    expect(route(10_000)).toBe(100);
  });
});
