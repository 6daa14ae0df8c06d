/**
 * Confidence in a window's metrics from its sample size: sqrt(n / min_sample_size), capped at 1.
 * The standard error of a rate estimate shrinks with sqrt(n), so a window with a quarter of the
 * required samples is half as trustworthy, not a quarter. A snapshot borrowed from the
 * operation-wide window for a thin region is further multiplied by REGION_FALLBACK_CONFIDENCE,
 * because other regions' behaviour is only indirect evidence about this one.
 */
export const REGION_FALLBACK_CONFIDENCE = 0.5;

export function confidenceFromSamples(sampleCount: number, minSampleSize: number): number {
  if (!(minSampleSize >= 1)) throw new RangeError(`min_sample_size must be >= 1, got ${minSampleSize}`);
  if (!(sampleCount > 0)) return 0;
  return Math.min(1, Math.sqrt(sampleCount / minSampleSize));
}
