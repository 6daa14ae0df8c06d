import type { TMetricSnapshot } from "../types";
import type { TMetricBucket } from "./bucket";
import { confidenceFromSamples, REGION_FALLBACK_CONFIDENCE } from "./confidence";
import { createHistogram, histogramQuantile, mergeHistogramInto } from "./histogram";

export type TWindowOptions = {
  now: number;
  windowMinutes: number;
  minSampleSize: number;
};

/** A bucket belongs to the window when any of it lies within the last windowMinutes. */
export function inWindow(b: TMetricBucket, now: number, windowMinutes: number): boolean {
  return b.start + b.widthMs > now - windowMinutes * 60_000 && b.start <= now;
}

/**
 * Summarises buckets (already filtered to one provider and scope) into a snapshot.
 *
 * Completion rate counts only provider-attributable failures: completions / (completions +
 * provider_call failures). Failures at before_provider, user_action and downstream_app say
 * nothing about the provider and are left out of numerator and denominator. `unknown` is left
 * out too: counting it would let user abandonment or app bugs move traffic (the paper's section 4.9, docs/references.md), while
 * an unattributed provider fault still shows up in the call failure rate and latency. When no
 * attributable business outcome exists, the call success rate stands in for completion.
 * The sample count is the number of provider calls, the unit every other signal is measured in.
 */
export function summarizeBuckets(buckets: readonly TMetricBucket[], opts: TWindowOptions): TMetricSnapshot {
  const latency = createHistogram();
  let calls = 0;
  let callFailures = 0;
  let completions = 0;
  let attributableFailures = 0;
  let incidents = 0;
  let updatedAt: number | null = null;
  for (const b of buckets) {
    if (!inWindow(b, opts.now, opts.windowMinutes)) continue;
    calls += b.calls;
    callFailures += b.callFailures;
    completions += b.completions;
    attributableFailures += b.failuresByStage.provider_call;
    incidents += b.incidents;
    mergeHistogramInto(latency, b.latency);
    if (b.lastEventAt > 0 && (updatedAt === null || b.lastEventAt > updatedAt)) updatedAt = b.lastEventAt;
  }
  const errorRate = calls > 0 ? callFailures / calls : null;
  const outcomes = completions + attributableFailures;
  const completionRate = outcomes > 0 ? completions / outcomes : errorRate === null ? null : 1 - errorRate;
  return {
    sampleCount: calls,
    completionRate,
    errorRate,
    p95Ms: histogramQuantile(latency, 0.95),
    p99Ms: histogramQuantile(latency, 0.99),
    recentIncidents: incidents,
    confidence: confidenceFromSamples(calls, opts.minSampleSize),
    updatedAt,
    scope: updatedAt === null ? "none" : "region",
  };
}

/**
 * The snapshot for (provider, operation, region): the region's own window when it has at least
 * min_sample_size samples, otherwise the operation-wide window (every region) with confidence
 * scaled by REGION_FALLBACK_CONFIDENCE, unless the region alone is the better evidence.
 */
export function snapshotFor(buckets: readonly TMetricBucket[], provider: string, operation: string, region: string, opts: TWindowOptions): TMetricSnapshot {
  const own: TMetricBucket[] = [];
  const wide: TMetricBucket[] = [];
  for (const b of buckets) {
    if (b.provider !== provider || b.operation !== operation) continue;
    wide.push(b);
    if (b.region === region) own.push(b);
  }
  const summary = summarizeBuckets(own, opts);
  const regional = { ...summary, regional: { sampleCount: summary.sampleCount, failures: provenFailures(own, opts) } };
  if (regional.sampleCount >= opts.minSampleSize) return regional;
  const operationWide = summarizeBuckets(wide, opts);
  const borrowedConfidence = operationWide.confidence * REGION_FALLBACK_CONFIDENCE;
  if (operationWide.sampleCount <= regional.sampleCount || borrowedConfidence <= regional.confidence) return regional;
  return { ...operationWide, confidence: borrowedConfidence, scope: "operation", regional: regional.regional };
}

/** Provider-attributable failures in the window: the worse of failed calls and failed completions. */
function provenFailures(buckets: readonly TMetricBucket[], opts: TWindowOptions): number {
  let calls = 0;
  let completions = 0;
  for (const b of buckets) {
    if (!inWindow(b, opts.now, opts.windowMinutes)) continue;
    calls += b.callFailures;
    completions += b.failuresByStage.provider_call;
  }
  return Math.max(calls, completions);
}
