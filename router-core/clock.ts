/** Milliseconds since the Unix epoch. Injected so decisions and tests never read the wall clock. */
export interface Clock {
  now(): number;
}

export interface SimulatedClock extends Clock {
  /** Moves time forward; negative steps are refused because metric windows assume monotonic time. */
  advance(ms: number): void;
  set(ms: number): void;
}

export function createSimulatedClock(start = 0): SimulatedClock {
  if (!Number.isFinite(start)) throw new RangeError(`start must be a finite number, got ${start}`);
  let current = start;
  return {
    now: () => current,
    advance(ms: number) {
      if (!Number.isFinite(ms) || ms < 0) throw new RangeError(`ms must be a finite number >= 0, got ${ms}`);
      current += ms;
    },
    set(ms: number) {
      if (!Number.isFinite(ms) || ms < current) throw new RangeError(`ms must be finite and >= now (${current}), got ${ms}`);
      current = ms;
    },
  };
}

/** Adapts any `() => number` time source (e.g. Date.now in lib/) without router-core touching globals. */
export function createClock(now: () => number): Clock {
  return { now };
}
