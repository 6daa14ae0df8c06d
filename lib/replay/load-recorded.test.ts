import { describe, expect, it } from "vitest";
import { HISTOGRAM_BUCKETS } from "../../router-core/metrics/histogram";
import { addCounts } from "./load-recorded";

describe("addCounts", () => {
  it("adds a histogram's counts sent as text into the cell's, element by element", () => {
    const into = [1, 0, 2];
    addCounts(into, "0,7,10,123");
    expect(into).toEqual([1, 7, 12, 123]);
    addCounts(into, "");
    expect(into).toEqual([1, 7, 12, 123]);
  });

  it("keeps at most the histogram's buckets", () => {
    const into: number[] = [];
    addCounts(into, Array.from({ length: HISTOGRAM_BUCKETS + 3 }, () => "1").join(","));
    expect(into).toHaveLength(HISTOGRAM_BUCKETS);
  });

  it("refuses text that is not a list of counts, naming what and where", () => {
    expect(() => addCounts([], "1,,2")).toThrow('histogram counts: an empty count at 2 in "1,,2"');
    expect(() => addCounts([], "1,-2")).toThrow('histogram counts: "-" at 2 is not a digit or a comma');
    expect(() => addCounts([], "{1,2}")).toThrow('"{" at 0');
  });
});
