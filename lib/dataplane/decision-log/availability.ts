import type pg from "pg";

/**
 * Whether Postgres is reachable, as the writer last saw it. While it is not, a probe runs every
 * `probeIntervalMs` and marks it up again when a query answers.
 */
export function createAvailability(opts: { pool: pg.Pool; probeIntervalMs: number; onChange: (up: boolean) => void; probe?: () => Promise<void> }) {
  let up = true;
  let probeTimer: NodeJS.Timeout | null = null;

  async function probe(): Promise<void> {
    try {
      await (opts.probe ? opts.probe() : opts.pool.query("select 1"));
      set(true);
    } catch {
      // Still down; the next tick tries again.
    }
  }

  function set(next: boolean): void {
    if (up === next) return;
    up = next;
    if (next) {
      if (probeTimer) clearInterval(probeTimer);
      probeTimer = null;
    } else {
      probeTimer ??= setInterval(() => void probe(), opts.probeIntervalMs);
      probeTimer.unref();
    }
    opts.onChange(next);
  }

  return {
    get up(): boolean {
      return up;
    },
    set,
    stop(): void {
      if (probeTimer) clearInterval(probeTimer);
    },
  };
}
