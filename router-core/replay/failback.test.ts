import { describe, expect, it } from "vitest";
import { failbackRow, FAILBACK_RATES, runFailbackScenario } from "./failback";

describe("time to failback at lower volumes", { timeout: 60_000 }, () => {
  it("partial degradation at Table 14's volume: EU and NA fail back within the cooldown plus 15 minutes; a region never left shows none", () => {
    const rate = FAILBACK_RATES[0];
    const row = failbackRow("partial", rate, runFailbackScenario("partial", rate.requestsPerMinute, 42));
    const eu = row.regions.find((r) => r.region === "EU")!;
    expect(eu).toMatchObject({ displaced: true, perSecond: 5 });
    expect(eu.failbackMinutes).not.toBeNull();
    expect(eu.failbackMinutes!).toBeLessThanOrEqual(5 + 15);
    const regional = failbackRow("regional", rate, runFailbackScenario("regional", rate.requestsPerMinute, 42));
    expect(regional.regions.find((r) => r.region === "NA")).toMatchObject({ displaced: false, failbackMinutes: null });
  });
});
