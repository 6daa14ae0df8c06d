import { familyLines } from "./prometheus";

/**
 * A Prometheus histogram of durations in seconds with fixed bucket bounds: cumulative counts per
 * upper bound, their sum and count, as `histogram_quantile()` expects. Observing is an index search
 * over a dozen bounds and two additions, cheap enough for every decision.
 */
export type TLatencyHistogram = {
  observe(seconds: number): void;
  /** Bucket upper bounds (seconds, ascending) and the count of observations up to each, cumulative; then +Inf. */
  snapshot(): { bounds: readonly number[]; cumulative: readonly number[]; count: number; sum: number };
  /** The exposition lines of the family (`# HELP`, `# TYPE`, buckets, sum, count). */
  render(name: string, help: string): string[];
};

/** 0.5 ms to 10 s: the range between a quick commit and a stalled one. */
export const LATENCY_BOUNDS_SECONDS: readonly number[] = [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.02, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 10];

export function createLatencyHistogram(bounds: readonly number[] = LATENCY_BOUNDS_SECONDS): TLatencyHistogram {
  for (let i = 1; i < bounds.length; i++) if (!(bounds[i]! > bounds[i - 1]!)) throw new RangeError("histogram bounds must be strictly ascending");
  // Per-bucket (not cumulative) counts; the last slot is +Inf.
  const counts = new Float64Array(bounds.length + 1);
  let sum = 0;
  let count = 0;
  const snapshot = () => {
    const cumulative: number[] = [];
    let acc = 0;
    for (const c of counts) cumulative.push((acc += c));
    return { bounds, cumulative, count, sum };
  };
  return {
    observe(seconds) {
      if (!(seconds >= 0)) return;
      let i = 0;
      while (i < bounds.length && seconds > bounds[i]!) i++;
      counts[i]!++;
      sum += seconds;
      count++;
    },
    snapshot,
    render(name, help) {
      const s = snapshot();
      const series = s.bounds.map((b, i) => `${name}_bucket{le="${b}"} ${s.cumulative[i]}`);
      series.push(`${name}_bucket{le="+Inf"} ${s.count}`, `${name}_sum ${s.sum}`, `${name}_count ${s.count}`);
      return familyLines(name, "histogram", help, series);
    },
  };
}

/**
 * The q-quantile (0–1) of the observations between two scrapes of one histogram, from its parsed
 * `_bucket` lines (upper bound → cumulative count, +Inf as Infinity), interpolating linearly inside
 * the bucket as Prometheus's histogram_quantile does. Null when nothing was observed in between.
 */
export function quantileBetween(before: ReadonlyMap<number, number>, after: ReadonlyMap<number, number>, q: number): number | null {
  const bounds = [...after.keys()].sort((a, b) => a - b);
  const delta = bounds.map((b) => (after.get(b) ?? 0) - (before.get(b) ?? 0));
  const total = delta.at(-1) ?? 0;
  if (!(total > 0)) return null;
  const rank = q * total;
  let lower = 0;
  let below = 0;
  for (let i = 0; i < bounds.length; i++) {
    const upper = bounds[i]!;
    if (delta[i]! >= rank) {
      // Past the last finite bound nothing is known but that: answer that bound.
      if (!Number.isFinite(upper)) return lower;
      const inBucket = delta[i]! - below;
      return inBucket > 0 ? lower + ((upper - lower) * (rank - below)) / inBucket : upper;
    }
    lower = Number.isFinite(upper) ? upper : lower;
    below = delta[i]!;
  }
  return lower;
}

/** The `_bucket` lines of one histogram family in a Prometheus text exposition, as upper bound → cumulative count. */
export function parseBuckets(exposition: string, name: string): Map<number, number> {
  const out = new Map<number, number>();
  const re = new RegExp(`^${name}_bucket\\{le="([^"]+)"\\} (\\S+)$`, "gm");
  for (const m of exposition.matchAll(re)) out.set(m[1] === "+Inf" ? Infinity : Number(m[1]), Number(m[2]));
  return out;
}
