import { describe, expect, it } from "vitest";
import { circuitBreakerClosed } from "./circuit-breaker-closed";
import { gateInput } from "./gate-input.fixture";
import type { TBreakerView } from "../types";

const NOW = 1_750_000_000_000;
const check = (breaker: TBreakerView | undefined) => circuitBreakerClosed(gateInput({ breaker, now: NOW }));

describe("circuit_breaker_closed", () => {
  it("passes a closed or untracked circuit", () => {
    expect(check({ state: "closed", probeAvailable: false })).toEqual({ gate: "circuit_breaker_closed", passed: true, detail: "circuit closed" });
    expect(check(undefined).detail).toBe("no breaker state yet; treated as closed");
  });

  it("passes half-open only with a free probe slot", () => {
    expect(check({ state: "half_open", probeAvailable: true })).toEqual({
      gate: "circuit_breaker_closed",
      passed: true,
      detail: "circuit half-open; this request may be a probe",
    });
    expect(check({ state: "half_open", probeAvailable: false })).toEqual({
      gate: "circuit_breaker_closed",
      passed: false,
      detail: "circuit half-open and every probe slot is taken",
    });
  });

  it("fails open, with the next attempt rounded up to the second when known", () => {
    expect(check({ state: "open", probeAvailable: false, nextAttemptAt: NOW + 12_001 })).toEqual({
      gate: "circuit_breaker_closed",
      passed: false,
      detail: "circuit open; next attempt in 13s",
    });
    expect(check({ state: "open", probeAvailable: false }).detail).toBe("circuit open");
    expect(check({ state: "open", probeAvailable: false, nextAttemptAt: NOW - 5_000 }).detail).toBe("circuit open; next attempt in 0s");
  });
});
