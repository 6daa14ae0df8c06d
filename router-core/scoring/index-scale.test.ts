import { describe, expect, it } from "vitest";
import { SCORE_NAMES } from "../policy/names";
import { indexScaleText, INDEX_SCALES } from "./index-scale";

describe("index scales", () => {
  it("describes every score's scale", () => {
    for (const name of SCORE_NAMES) expect(INDEX_SCALES[name].length, name).toBeGreaterThan(10);
  });

  it("says why a high completion rate can be index 0: the scale ends at 3% failures", () => {
    expect(indexScaleText("completion_rate_5m", false)).toContain("0 once the failure rate's 95% lower bound reaches 3%");
    expect(indexScaleText("p95_latency_5m", true)).toContain("safe default 50");
  });
});
