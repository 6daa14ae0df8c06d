import { describe, expect, it } from "vitest";
import { createLatencyHistogram, parseBuckets, quantileBetween } from "./latency-histogram";

describe("latency histogram", () => {
  it("counts observations into cumulative buckets and renders the Prometheus family", () => {
    const h = createLatencyHistogram([0.001, 0.01, 0.1]);
    for (const s of [0.0005, 0.001, 0.002, 0.05, 0.05, 3]) h.observe(s);
    h.observe(Number.NaN);
    const snap = h.snapshot();
    expect(snap.cumulative).toEqual([2, 3, 5, 6]);
    expect(snap.count).toBe(6);
    expect(snap.sum).toBeCloseTo(3.1035, 9);
    const text = h.render("x_seconds", "help").join("\n");
    expect(text).toContain('x_seconds_bucket{le="0.01"} 3');
    expect(text).toContain('x_seconds_bucket{le="+Inf"} 6');
    expect(text).toContain("# TYPE x_seconds histogram");
    expect([...parseBuckets(text, "x_seconds")]).toEqual([
      [0.001, 2],
      [0.01, 3],
      [0.1, 5],
      [Infinity, 6],
    ]);
  });

  it("estimates quantiles of what was observed between two scrapes", () => {
    const h = createLatencyHistogram([0.01, 0.02, 0.04]);
    for (let i = 0; i < 100; i++) h.observe(0.005);
    const before = parseBuckets(h.render("y", "h").join("\n"), "y");
    // Between the scrapes: 90 in (0.01, 0.02], 10 in (0.02, 0.04].
    for (let i = 0; i < 90; i++) h.observe(0.015);
    for (let i = 0; i < 10; i++) h.observe(0.03);
    const after = parseBuckets(h.render("y", "h").join("\n"), "y");
    expect(quantileBetween(before, after, 0.5)).toBeCloseTo(0.01 + 0.01 * (50 / 90), 12);
    expect(quantileBetween(before, after, 0.99)).toBeCloseTo(0.02 + 0.02 * (9 / 10), 12);
    expect(quantileBetween(after, after, 0.5)).toBeNull();
  });
});
