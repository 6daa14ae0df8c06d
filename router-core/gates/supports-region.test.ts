import { describe, expect, it } from "vitest";
import { gateInput } from "./gate-input.fixture";
import { supportsRegion } from "./supports-region";

describe("supports_region", () => {
  it("passes a provider serving the region, or every region", () => {
    expect(supportsRegion(gateInput())).toEqual({ gate: "supports_region", passed: true, detail: "provider serves the request region" });
    expect(supportsRegion(gateInput({ region: "APAC" }, { regions: ["*"] })).detail).toBe("provider serves all regions");
  });

  it("fails with the regions the provider does serve", () => {
    expect(supportsRegion(gateInput({ region: "US" }, { regions: ["EU", "UK"] }))).toEqual({
      gate: "supports_region",
      passed: false,
      detail: "provider does not serve region US (serves EU, UK)",
    });
    expect(supportsRegion(gateInput({}, { regions: [] })).detail).toBe("provider does not serve region EU (serves no region)");
  });
});
