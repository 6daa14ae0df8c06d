/**
 * Exponential backoff with full jitter (the AWS architecture blog's "Full Jitter"): a uniform
 * delay in [0, min(cap, base · 2^attempt)). Jitter spreads the retries of many callers that
 * failed together, which is what keeps a congested provider from being hit in waves.
 */
export function fullJitterDelay(attempt: number, opts: { baseMs: number; capMs: number }, random: () => number): number {
  if (!(attempt >= 0)) throw new RangeError(`attempt must be >= 0, got ${attempt}`);
  const ceiling = Math.min(opts.capMs, opts.baseMs * 2 ** attempt);
  return Math.floor(random() * ceiling);
}
