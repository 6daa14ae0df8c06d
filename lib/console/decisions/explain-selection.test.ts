import { describe, expect, it } from "vitest";
import type { TCandidateRecord } from "@/router-core/decision/record";
import { explainSelection } from "./explain-selection";

const candidate = (provider: string, score: number | null, share: number): TCandidateRecord =>
  ({
    provider,
    priority: 0,
    gates: [],
    passedGates: true,
    guardrail: null,
    eligible: score !== null,
    contributions: [],
    score,
    share,
    selectionProbability: share,
    metricsAt: null,
    stale: false,
    sampleCount: 100,
    metricScope: "region",
  }) as unknown as TCandidateRecord;

describe("explainSelection", () => {
  it("says a close score does not move traffic: the plan and the hysteresis margin do", () => {
    const lines = explainSelection({
      strategy: "weighted_score",
      selected: "provider_C",
      override: "none",
      reasonCode: "share_weighted",
      scoreMargin: 0.12,
      candidates: [candidate("provider_B", 46.89, 0.01), candidate("provider_C", 46.77, 0.99)],
    });
    expect(lines.join(" ")).toContain("hysteresis_score_margin");
    expect(lines.at(-1)).toBe(
      "provider_B scores 46.89, provider_C 46.77 (0.12 apart); the plan gives provider_C 99.0%: while the gap stays inside the margin the plan keeps provider_C as leader.",
    );
  });

  it("names a pin instead of scores", () => {
    const lines = explainSelection({
      strategy: "weighted_score",
      selected: "provider_B",
      override: "pinned",
      reasonCode: "pinned",
      scoreMargin: null,
      candidates: [],
    });
    expect(lines).toEqual(["A pin sent this decision to provider_B: scores and shares were not used."]);
  });
});
