import { describe, expect, it } from "vitest";
import { LocalDecisionCounts } from "../src/local-counts";

const key = {
  operation: "SEND_SMS",
  region: "EU",
  selected: "provider_A",
  reasonCode: "share_weighted",
  policyVersion: "v1",
  shadow: "none",
  stale: false,
  degraded: false,
  source: "local",
  shadowPick: null,
} as const;
const T = Date.UTC(2026, 11, 4, 12, 0, 0);

describe("LocalDecisionCounts", () => {
  it("counts per minute and cell; a decision after a report took its cell goes to the next report, not the one out", () => {
    const c = new LocalDecisionCounts(100);
    for (let i = 0; i < 3; i++) c.add(T + i, key);
    c.add(T + 60_000, key);
    c.add(T + 5, { ...key, selected: "provider_B" });
    const first = c.next()!;
    expect(first.counts.map((x) => [x.minute, x.selected, x.count])).toEqual([
      [T, "provider_A", 3],
      [T + 60_000, "provider_A", 1],
      [T, "provider_B", 1],
    ]);
    // Still out: the same report again, unchanged, whatever is counted meanwhile.
    c.add(T + 7, key);
    c.add(T + 8, key);
    expect(c.next()).toBe(first);
    expect(c.stats()).toEqual({ made: 7, reported: 0, refused: 0, dropped: 0, pending: 7 });
    c.settle(true);
    const second = c.next()!;
    expect(second.batchId).not.toBe(first.batchId);
    expect(second.counts).toEqual([{ minute: T, ...key, count: 2 }]);
    c.settle(false);
    expect(c.stats()).toEqual({ made: 7, reported: 5, refused: 2, dropped: 0, pending: 0 });
    expect(c.next()).toBeNull();
  });

  it("drops (and counts) a decision of a new cell past the bound, never one of a cell it holds", () => {
    const c = new LocalDecisionCounts(2);
    c.add(T, key);
    c.add(T, { ...key, region: "NA" });
    c.add(T, { ...key, region: "APAC" });
    c.add(T, key);
    expect(c.stats()).toEqual({ made: 4, reported: 0, refused: 0, dropped: 1, pending: 3 });
  });
});
