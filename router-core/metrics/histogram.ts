/**
 * Latency histogram with fixed log-scale boundaries shared by every instance, so merging two
 * instances' histograms is exact: add the counts index by index. Bucket i holds latencies in
 * (GROWTH^(i-1), GROWTH^i] ms; GROWTH = 2^(1/8) keeps a quantile within 9% of the true value
 * while 1 ms..~2.4 h fits in HISTOGRAM_BUCKETS slots.
 */
export const HISTOGRAM_GROWTH = 2 ** (1 / 8);
export const HISTOGRAM_BUCKETS = 8 * 23 + 1;
const LOG_GROWTH = Math.log(HISTOGRAM_GROWTH);

/** Plain data (JSON-safe): counts[i] is the number of latencies in bucket i. */
export type TLatencyHistogram = { counts: number[] };

export function createHistogram(): TLatencyHistogram {
  return { counts: new Array<number>(HISTOGRAM_BUCKETS).fill(0) };
}

export function histogramBucketIndex(latencyMs: number): number {
  if (!(latencyMs > 1)) return 0;
  // The epsilon keeps exact powers (e.g. 2 ms) in their own bucket despite floating-point log error.
  const i = Math.ceil(Math.log(latencyMs) / LOG_GROWTH - 1e-9);
  return i >= HISTOGRAM_BUCKETS ? HISTOGRAM_BUCKETS - 1 : i;
}

/** Upper boundary of bucket i, in ms. */
export function histogramUpperBound(i: number): number {
  return HISTOGRAM_GROWTH ** i;
}

export function recordLatency(h: TLatencyHistogram, latencyMs: number): void {
  if (!Number.isFinite(latencyMs) || latencyMs < 0) throw new RangeError(`latencyMs must be a finite number >= 0, got ${latencyMs}`);
  const i = histogramBucketIndex(latencyMs);
  h.counts[i] = (h.counts[i] ?? 0) + 1;
}

/** Adds `from` into `into`. */
export function mergeHistogramInto(into: TLatencyHistogram, from: TLatencyHistogram): void {
  if (from.counts.length !== HISTOGRAM_BUCKETS) {
    throw new RangeError(`histogram must have ${HISTOGRAM_BUCKETS} buckets, got ${from.counts.length}`);
  }
  for (let i = 0; i < HISTOGRAM_BUCKETS; i++) into.counts[i] = (into.counts[i] ?? 0) + (from.counts[i] ?? 0);
}

export function histogramCount(h: TLatencyHistogram): number {
  let n = 0;
  for (const c of h.counts) n += c;
  return n;
}

/**
 * The q-quantile as the upper boundary of the bucket holding the ceil(q·n)-th latency: it never
 * under-reports, which is the safe side for a latency guardrail. Null on an empty histogram.
 */
export function histogramQuantile(h: TLatencyHistogram, q: number): number | null {
  if (!(q > 0 && q <= 1)) throw new RangeError(`q must be in (0, 1], got ${q}`);
  const n = histogramCount(h);
  if (n === 0) return null;
  const rank = Math.ceil(q * n);
  let seen = 0;
  for (let i = 0; i < HISTOGRAM_BUCKETS; i++) {
    seen += h.counts[i] ?? 0;
    if (seen >= rank) return histogramUpperBound(i);
  }
  return histogramUpperBound(HISTOGRAM_BUCKETS - 1);
}
