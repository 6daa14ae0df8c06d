import { describe, expect, it } from "vitest";
import { LISTING_1_YAML, listing1 } from "../../router-core/replay";
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

  it("does not credit a provider nobody observed: success is the range from it failing every call to answering every call", () => {
    const report = runWhatIf(recorded(), LISTING_1_YAML);
    const range = report.unknown!.successRange;
    // B was never observed; the assumed-healthy projection lies inside the range, whose low end is what B failing would give.
    expect(range.low).toBeLessThan(report.projectedSuccessRate);
    expect(range.high).toBeGreaterThanOrEqual(report.projectedSuccessRate);
    expect(range.low).toBeLessThan(0.9);
    const observed = recorded();
    observed.cells = observed.cells.map((minute) => [minute[0]!, [healthy]]);
    expect(runWhatIf(observed, LISTING_1_YAML).unknown).toBeNull();
  });

  it("refuses a draft for another operation", () => {
    expect(() => runWhatIf(recorded(), LISTING_1_YAML.replace("SEND_SMS", "SEND_EMAIL"))).toThrow("draft factor list is for SEND_EMAIL");
  });

  describe("compliance", () => {
    // A holds gdpr, B does not; the catalogue requires gdpr in EU (as the demo's EU SMS does).
    const withCatalog = (): TRecordedTraffic => ({
      ...recorded(),
      catalog: [
        { key: "A", regions: ["EU"], complianceTags: ["gdpr"] },
        { key: "B", regions: ["EU"], complianceTags: ["soc2"] },
      ],
      regionRequirements: { EU: ["gdpr"] },
    });
    const withoutGate = LISTING_1_YAML.replace("  - compliance_allowed\n", "");
    const active = { policy: listing1(), version: "v1" };

    it("counts the replayed decisions a draft without the compliance gate sends to a provider the active policy refuses", () => {
      const report = runWhatIf(withCatalog(), withoutGate, { active });
      const projectedB = report.providers.find((p) => p.provider === "B")!.projectedShare * report.requests;
      expect(report.compliance?.activeVersion).toBe("v1");
      expect(report.compliance?.breaches).toHaveLength(1);
      const breach = report.compliance!.breaches[0]!;
      expect(breach).toMatchObject({ region: "EU", provider: "B", regionDecisions: 3000 });
      expect(breach.decisions).toBeGreaterThan(0);
      expect(breach.decisions).toBeCloseTo(projectedB, 6);
      expect(breach.reason).toContain("lacks required compliance: gdpr");
    });

    it("finds no breach when the draft keeps the gate: the replay applies the catalogue's requirements", () => {
      const report = runWhatIf(withCatalog(), LISTING_1_YAML, { active });
      expect(report.compliance?.breaches).toEqual([]);
      expect(report.providers.find((p) => p.provider === "B")!.projectedShare).toBe(0);
    });

    it("is not checked without an active policy", () => {
      expect(runWhatIf(withCatalog(), withoutGate).compliance).toBeNull();
    });
  });

  it("states coverage: minutes with recorded decisions of the minutes asked", () => {
    const rec = recorded();
    const requests = Array.from({ length: 180 }, (_, m) => (m >= 150 && m < 175 ? [100] : [0]));
    const report = runWhatIf({ ...rec, requests, selected: requests.map((r) => [r[0]!, 0]), cells: requests.map(() => [[healthy], [null]]) }, LISTING_1_YAML);
    expect(report.coverage).toEqual({ askedMinutes: 180, recordedMinutes: 25, firstAt: 150 * 60_000, lastAt: 174 * 60_000 });
  });
});
