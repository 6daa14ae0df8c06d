import { describe, expect, it } from "vitest";
import { overrideLimitsFromEnv } from "./override-limits";

describe("overrideLimitsFromEnv", () => {
  it("defaults a pin's maximum to 24 h, takes hours from SWITCHYARD_PIN_MAX_EXPIRY_HOURS and refuses nonsense", () => {
    expect(overrideLimitsFromEnv({}).pinMaxExpiryMs).toBe(24 * 3_600_000);
    expect(overrideLimitsFromEnv({ SWITCHYARD_PIN_MAX_EXPIRY_HOURS: "4" }).pinMaxExpiryMs).toBe(4 * 3_600_000);
    expect(overrideLimitsFromEnv({ SWITCHYARD_PIN_MAX_EXPIRY_HOURS: "0.5" }).pinMaxExpiryMs).toBe(1_800_000);
    for (const bad of ["0", "-1", "soon"])
      expect(() => overrideLimitsFromEnv({ SWITCHYARD_PIN_MAX_EXPIRY_HOURS: bad })).toThrow(/SWITCHYARD_PIN_MAX_EXPIRY_HOURS/);
  });
});
