import { describe, expect, it } from "vitest";
import { LISTING_1_YAML } from "../../router-core/replay";
import { runWhatIf, type TRecordedCell, type TRecordedTraffic } from "./what-if";

const healthy: TRecordedCell = { calls: 100, callFailures: 0, completions: 100, providerFailures: 0, p95Ms: 380 };
const down: TRecordedCell = { calls: 100, callFailures: 100, completions: 0, providerFailures: 100, p95Ms: 3000 };

/** 30 minutes, all traffic recorded on A, which failed from minute 10 to 20; B served nothing. */
function recorded(): TRecordedTraffic {
  const minutes = 30;
  return {
    operation: "SEND_SMS",
    startMs: 0,
    providers: ["A", "B"],
    regions: ["EU"],
    requests: Array.from({ length: minutes }, () => [100]),
    selected: Array.from({ length: minutes }, () => [100, 0]),
    cells: Array.from({ length: minutes }, (_, m) => [[m >= 10 && m < 20 ? down : healthy], [null]]),
  };
}

describe("what-if replay", { timeout: 60_000 }, () => {
  it("projects the draft moving off a provider that failed in the recording, next to what happened", () => {
    const report = runWhatIf(recorded(), LISTING_1_YAML);
    expect(report.requests).toBe(3000);
    expect(report.actualSuccessRate).toBeCloseTo(2000 / 3000, 6);
    expect(report.projectedSuccessRate).toBeGreaterThan(0.95);
    expect(report.providers.find((p) => p.provider === "A")?.actualShare).toBe(1);
    expect(report.providers.find((p) => p.provider === "B")!.projectedShare).toBeGreaterThan(0.2);
    expect(report.minutes[15]!.projected.B).toBeGreaterThan(0.9);
    expect(report.assumed).toEqual([{ provider: "B", region: "EU", minutes: 30 }]);
  });

  it("refuses a draft for another operation", () => {
    expect(() => runWhatIf(recorded(), LISTING_1_YAML.replace("SEND_SMS", "SEND_EMAIL"))).toThrow("draft factor list is for SEND_EMAIL");
  });
});
