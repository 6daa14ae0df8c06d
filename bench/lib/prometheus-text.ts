/**
 * Reading Prometheus text exposition (the server's /api/v1/metrics) from the benchmarks: one
 * sample's value, and the cumulative buckets of a histogram with quantiles between two scrapes
 * (the product's own parser, so the benchmarks read exactly what it writes).
 */
export { parseBuckets, quantileBetween } from "../../lib/dataplane/metrics/latency-histogram";

/** The value of the sample whose name and labels are exactly `series` (e.g. `x{quantile="0.99"}`), or null. */
export function sampleValue(text: string, series: string): number | null {
  const at = text.indexOf(`${series} `);
  if (at < 0) return null;
  const v = Number(text.slice(at + series.length + 1, text.indexOf("\n", at)));
  return Number.isFinite(v) ? v : null;
}
