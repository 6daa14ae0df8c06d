import { createHistogram, HISTOGRAM_BUCKETS, mergeHistogramInto, recordLatency, type TLatencyHistogram } from "./histogram";

/** Where a failed business outcome failed (the paper's section 4.9, docs/references.md). */
export const FAILURE_STAGES = ["before_provider", "provider_call", "user_action", "downstream_app", "unknown"] as const;
export type TFailureStage = (typeof FAILURE_STAGES)[number];

/**
 * One time bucket of metrics for (provider, operation, region). Plain JSON data so instances
 * can store deltas in Postgres and merge them exactly: every field is a count or a max.
 */
export type TMetricBucket = {
  provider: string;
  operation: string;
  region: string;
  /** Bucket start, epoch ms, aligned to widthMs. */
  start: number;
  widthMs: number;
  calls: number;
  /** Provider-attributable call failures (errors, timeouts, throttles). */
  callFailures: number;
  latency: TLatencyHistogram;
  /** Business outcomes that completed. */
  completions: number;
  failuresByStage: Record<TFailureStage, number>;
  incidents: number;
  /** Time of the newest event in the bucket; 0 when empty. */
  lastEventAt: number;
};

export type TProviderCallEvent = { at: number; latencyMs: number; ok: boolean };
export type TBusinessOutcomeEvent = { at: number; completed: boolean; failureStage?: TFailureStage };

export function bucketStart(at: number, widthMs: number): number {
  return Math.floor(at / widthMs) * widthMs;
}

export function createBucket(provider: string, operation: string, region: string, at: number, widthMs: number): TMetricBucket {
  if (!(widthMs > 0)) throw new RangeError(`widthMs must be > 0, got ${widthMs}`);
  return {
    provider,
    operation,
    region,
    start: bucketStart(at, widthMs),
    widthMs,
    calls: 0,
    callFailures: 0,
    latency: createHistogram(),
    completions: 0,
    failuresByStage: { before_provider: 0, provider_call: 0, user_action: 0, downstream_app: 0, unknown: 0 },
    incidents: 0,
    lastEventAt: 0,
  };
}

export function recordProviderCall(b: TMetricBucket, e: TProviderCallEvent): void {
  b.calls++;
  if (!e.ok) b.callFailures++;
  recordLatency(b.latency, e.latencyMs);
  if (e.at > b.lastEventAt) b.lastEventAt = e.at;
}

export function recordBusinessOutcome(b: TMetricBucket, e: TBusinessOutcomeEvent): void {
  if (e.completed) b.completions++;
  else b.failuresByStage[e.failureStage ?? "unknown"]++;
  if (e.at > b.lastEventAt) b.lastEventAt = e.at;
}

export function recordIncident(b: TMetricBucket, at: number): void {
  b.incidents++;
  if (at > b.lastEventAt) b.lastEventAt = at;
}

export function bucketKey(b: Pick<TMetricBucket, "provider" | "operation" | "region" | "start">): string {
  return `${b.provider}|${b.operation}|${b.region}|${b.start}`;
}

/** Adds `from` into `into`; both must cover the same key and time span. */
export function mergeBucketInto(into: TMetricBucket, from: TMetricBucket): void {
  if (bucketKey(into) !== bucketKey(from) || into.widthMs !== from.widthMs) {
    throw new RangeError(`cannot merge bucket ${bucketKey(from)}/${from.widthMs} into ${bucketKey(into)}/${into.widthMs}`);
  }
  into.calls += from.calls;
  into.callFailures += from.callFailures;
  mergeHistogramInto(into.latency, from.latency);
  into.completions += from.completions;
  for (const stage of FAILURE_STAGES) into.failuresByStage[stage] += from.failuresByStage[stage];
  into.incidents += from.incidents;
  into.lastEventAt = Math.max(into.lastEventAt, from.lastEventAt);
}

export function cloneBucket(b: TMetricBucket): TMetricBucket {
  return { ...b, latency: { counts: [...b.latency.counts] }, failuresByStage: { ...b.failuresByStage } };
}

const isCount = (v: unknown): v is number => typeof v === "number" && Number.isFinite(v) && v >= 0;

/** Validates a bucket read back from storage (JSON); throws a RangeError naming the bad field. */
export function restoreBucket(json: unknown): TMetricBucket {
  const o = json as Partial<TMetricBucket> | null;
  if (o === null || typeof o !== "object") throw new RangeError(`bucket must be an object, got ${String(json)}`);
  for (const f of ["provider", "operation", "region"] as const) {
    if (typeof o[f] !== "string") throw new RangeError(`bucket.${f} must be a string, got ${String(o[f])}`);
  }
  for (const f of ["start", "widthMs", "calls", "callFailures", "completions", "incidents", "lastEventAt"] as const) {
    if (!isCount(o[f])) throw new RangeError(`bucket.${f} must be a number >= 0, got ${String(o[f])}`);
  }
  const counts = o.latency?.counts;
  if (!Array.isArray(counts) || counts.length !== HISTOGRAM_BUCKETS || !counts.every(isCount)) {
    throw new RangeError(`bucket.latency.counts must be ${HISTOGRAM_BUCKETS} counts`);
  }
  const stages = o.failuresByStage as Record<string, unknown> | undefined;
  for (const s of FAILURE_STAGES) {
    if (!isCount(stages?.[s])) throw new RangeError(`bucket.failuresByStage.${s} must be a number >= 0, got ${String(stages?.[s])}`);
  }
  return cloneBucket(o as TMetricBucket);
}
