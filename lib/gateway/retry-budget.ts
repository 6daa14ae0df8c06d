/**
 * Envoy-style retry budget: retries may be at most `ratio` of the requests seen in a sliding
 * window, but at least `minPerSecond` per second, so a quiet operation can still retry. Counted
 * per instance in one-second buckets; a retry is admitted (and counted) or refused at once.
 */
export type TRetryBudgetOptions = { ratio: number; minPerSecond: number; windowSeconds?: number };

export function createRetryBudget(opts: TRetryBudgetOptions, now: () => number = Date.now) {
  if (!(opts.ratio >= 0)) throw new RangeError(`retry budget ratio must be >= 0, got ${opts.ratio}`);
  if (!(opts.minPerSecond >= 0)) throw new RangeError(`retry budget minPerSecond must be >= 0, got ${opts.minPerSecond}`);
  const window = opts.windowSeconds ?? 10;
  const requests = new Array<number>(window).fill(0);
  const retries = new Array<number>(window).fill(0);
  let current = Math.floor(now() / 1000);
  let reqTotal = 0;
  let retryTotal = 0;

  function advance(): number {
    const second = Math.floor(now() / 1000);
    if (second === current) return second % window;
    const steps = Math.min(window, second - current);
    for (let i = 1; i <= steps; i++) {
      const slot = (current + i) % window;
      reqTotal -= requests[slot]!;
      retryTotal -= retries[slot]!;
      requests[slot] = 0;
      retries[slot] = 0;
    }
    current = second;
    return second % window;
  }

  return {
    /** Counts one original request (not its retries). */
    request(): void {
      const slot = advance();
      requests[slot]! += 1;
      reqTotal += 1;
    },
    /** True and counted when one more retry fits the budget. */
    tryRetry(): boolean {
      const slot = advance();
      const allowed = Math.max(opts.ratio * reqTotal, opts.minPerSecond * window);
      if (retryTotal + 1 > allowed) return false;
      retries[slot]! += 1;
      retryTotal += 1;
      return true;
    },
    stats(): { requests: number; retries: number; windowSeconds: number } {
      advance();
      return { requests: reqTotal, retries: retryTotal, windowSeconds: window };
    },
  };
}

export type RetryBudget = ReturnType<typeof createRetryBudget>;
