import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { createBucket, mergeBucketInto, recordBusinessOutcome, recordProviderCall, restoreBucket } from "./bucket";
import { confidenceFromSamples, REGION_FALLBACK_CONFIDENCE } from "./confidence";
import { createHistogram, histogramBucketIndex, histogramQuantile, histogramUpperBound, mergeHistogramInto, recordLatency } from "./histogram";
import { createMetricStore, restoreMetricStore } from "./store";
import { summarizeBuckets } from "./window";

const MIN = 60_000;
const key = { provider: "a", operation: "SEND_SMS", region: "EU" };

describe("latency histogram", () => {
  it("puts a latency in the bucket whose bounds contain it", () => {
    fc.assert(
      fc.property(fc.double({ min: 1.0001, max: 1e6, noNaN: true }), (ms) => {
        const i = histogramBucketIndex(ms);
        expect(ms).toBeLessThanOrEqual(histogramUpperBound(i) * (1 + 1e-9));
        expect(ms).toBeGreaterThan(histogramUpperBound(i - 1) * (1 - 1e-9));
      }),
    );
  });

  it("merges two instances exactly: merged quantiles equal those of the combined stream", () => {
    fc.assert(
      fc.property(fc.array(fc.double({ min: 0, max: 60_000, noNaN: true })), fc.array(fc.double({ min: 0, max: 60_000, noNaN: true })), (xs, ys) => {
        const a = createHistogram();
        const b = createHistogram();
        const all = createHistogram();
        xs.forEach((x) => (recordLatency(a, x), recordLatency(all, x)));
        ys.forEach((y) => (recordLatency(b, y), recordLatency(all, y)));
        mergeHistogramInto(a, b);
        expect(a.counts).toEqual(all.counts);
        expect(histogramQuantile(a, 0.95)).toBe(histogramQuantile(all, 0.95));
      }),
    );
  });

  it("reports p95 within one bucket (about 9%) above the true value", () => {
    const h = createHistogram();
    for (let ms = 1; ms <= 1000; ms++) recordLatency(h, ms);
    const p95 = histogramQuantile(h, 0.95)!;
    expect(p95).toBeGreaterThanOrEqual(950);
    expect(p95).toBeLessThan(950 * 1.1);
    expect(histogramQuantile(createHistogram(), 0.95)).toBeNull();
  });
});

describe("confidence", () => {
  it("grows with sqrt(n / min_sample_size) and caps at 1", () => {
    expect(confidenceFromSamples(0, 100)).toBe(0);
    expect(confidenceFromSamples(25, 100)).toBe(0.5);
    expect(confidenceFromSamples(100, 100)).toBe(1);
    expect(confidenceFromSamples(725, 100)).toBe(1);
    expect(() => confidenceFromSamples(1, 0)).toThrow("min_sample_size must be >= 1, got 0");
  });
});

describe("completion attribution", () => {
  it("counts only provider_call failures against the provider", () => {
    const b = createBucket("a", "SEND_SMS", "EU", 0, MIN);
    for (let i = 0; i < 80; i++) recordBusinessOutcome(b, { at: 1, completed: true });
    for (let i = 0; i < 10; i++) recordBusinessOutcome(b, { at: 1, completed: false, failureStage: "provider_call" });
    for (const stage of ["before_provider", "user_action", "downstream_app", "unknown"] as const) {
      for (let i = 0; i < 50; i++) recordBusinessOutcome(b, { at: 1, completed: false, failureStage: stage });
    }
    recordProviderCall(b, { at: 2, latencyMs: 100, ok: true });
    const s = summarizeBuckets([b], { now: 10, windowMinutes: 5, minSampleSize: 100 });
    expect(s.completionRate).toBeCloseTo(80 / 90, 12);
    expect(s.updatedAt).toBe(2);
  });

  it("uses the call success rate when no business outcome is attributable", () => {
    const b = createBucket("a", "SEND_SMS", "EU", 0, MIN);
    recordProviderCall(b, { at: 1, latencyMs: 10, ok: true });
    recordProviderCall(b, { at: 1, latencyMs: 10, ok: false });
    expect(summarizeBuckets([b], { now: 10, windowMinutes: 5, minSampleSize: 100 })).toMatchObject({
      completionRate: 0.5,
      errorRate: 0.5,
      sampleCount: 2,
    });
  });
});

describe("metric store", () => {
  it("rolls the window: buckets older than metric_window_minutes drop out", () => {
    const store = createMetricStore();
    store.recordCall(key, { at: 0, latencyMs: 50, ok: false });
    store.recordCall(key, { at: 6 * MIN, latencyMs: 50, ok: true });
    const s = store.snapshot(key, { now: 6 * MIN + 1, windowMinutes: 5, minSampleSize: 1 });
    expect(s).toMatchObject({ sampleCount: 1, errorRate: 0, updatedAt: 6 * MIN, scope: "region" });
  });

  it("falls back from a thin region to the operation-wide window with lower confidence", () => {
    const store = createMetricStore();
    for (let i = 0; i < 5; i++) store.recordCall(key, { at: 1000, latencyMs: 100, ok: true });
    for (let i = 0; i < 400; i++) store.recordCall({ ...key, region: "US" }, { at: 1000, latencyMs: 100, ok: i % 10 !== 0 });
    const opts = { now: 2000, windowMinutes: 5, minSampleSize: 100 };
    const s = store.snapshot(key, opts);
    expect(s.scope).toBe("operation");
    expect(s.sampleCount).toBe(405);
    expect(s.confidence).toBe(REGION_FALLBACK_CONFIDENCE);
    expect(store.snapshot({ ...key, region: "US" }, opts)).toMatchObject({ scope: "region", confidence: 1 });
  });

  it("merges two instances' deltas exactly and restores from JSON", () => {
    const a = createMetricStore();
    const b = createMetricStore();
    const shared = createMetricStore();
    a.recordCall(key, { at: 100, latencyMs: 30, ok: true });
    b.recordCall(key, { at: 200, latencyMs: 900, ok: false });
    b.recordOutcome(key, { at: 210, completed: false, failureStage: "provider_call" });
    shared.merge(a.drainDeltas());
    shared.merge(b.drainDeltas());
    expect(a.drainDeltas()).toEqual([]);
    const opts = { now: 1000, windowMinutes: 5, minSampleSize: 1 };
    const s = shared.snapshot(key, opts);
    expect(s).toMatchObject({ sampleCount: 2, errorRate: 0.5, completionRate: 0, updatedAt: 210 });
    const restored = restoreMetricStore(JSON.parse(JSON.stringify(shared.toJSON())));
    expect(restored.snapshot(key, opts)).toEqual(s);
  });

  it("rejects corrupt stored buckets and mismatched merges", () => {
    expect(() => restoreBucket({ provider: "a" })).toThrow(RangeError);
    const x = createBucket("a", "op", "EU", 0, MIN);
    const y = createBucket("a", "op", "EU", MIN, MIN);
    expect(() => mergeBucketInto(x, y)).toThrow(/cannot merge/);
  });
});
