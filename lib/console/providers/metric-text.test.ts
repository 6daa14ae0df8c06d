import { describe, expect, it } from "vitest";
import { contributionText, metricText } from "./metric-text";

describe("metricText", () => {
  it("renders weighted-score contributions as weight × index, never [object Object]", () => {
    const contributions = [
      { score: "completion_rate", raw: 0.955, index: 0, weight: 0.45, value: 0, defaulted: false },
      { score: "latency_p95", raw: 820, index: 61.5, weight: 0.3, value: 18.45, defaulted: false },
    ];
    const text = metricText("contributions", contributions);
    expect(text).not.toContain("[object Object]");
    expect(text).toBe("completion_rate 0.45 × 0.0 = 0.0, latency_p95 0.30 × 61.5 = 18.4");
  });

  it("renders epoch milliseconds under a time key as a UTC time", () => {
    expect(metricText("updatedAt", 1796229004767)).toBe("2026-12-02 16:30:04Z");
    expect(metricText("openedAt", 1796229004767)).toBe("2026-12-02 16:30:04Z");
  });

  it("keeps counts, rates and durations as such", () => {
    expect(metricText("sampleCount", 1796229)).toBe("1796229");
    expect(metricText("completionRate", 0.955)).toBe("95.5%");
    expect(metricText("p95Ms", 820)).toBe("820 ms");
    expect(metricText("updatedAt", 42)).toBe("42");
  });

  it("renders nested objects key by key and missing values as a dash", () => {
    expect(metricText("breaker", { state: "open", consecutiveFailures: 5, openedAt: 1796229004767 })).toBe(
      "state open, consecutiveFailures 5, openedAt 2026-12-02 16:30:04Z",
    );
    expect(metricText("x", null)).toBe("–");
    expect(metricText("x", Number.NaN)).toBe("–");
    expect(contributionText({ score: "cost", index: 50, weight: 0.2 })).toBe("cost 0.20 × 50.0 = 10.0");
  });
});
