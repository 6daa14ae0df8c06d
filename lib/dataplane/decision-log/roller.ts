import type pg from "pg";

/** How often pending rollup cells are moved into the rollups. */
export const ROLL_INTERVAL_MS = 1_000;

export type TRollupRoller = {
  /** Moves the pending cells now; the number of cells moved, or -1 when another roller held the lock. */
  rollNow(): Promise<number>;
  /** Stops the timer and moves what is pending once more (best effort: reads count pending cells anyway). */
  close(): Promise<void>;
};

/**
 * Moves decide's pending rollup cells (decision_rollup_pending, one insert per group commit) into
 * decision_rollup, its tiers and decision_served_minutes once a second, in one transaction
 * (decision_rollup_roll). Every instance runs one; the function's lock lets one work at a time and
 * the others skip that tick. Reads count pending cells with the rollups, so a roll that fails
 * (Postgres away) only leaves them for the next tick; the first failure of a run is logged.
 */
export function startRollupRoller(opts: { pool: pg.Pool; log: (line: string) => void; intervalMs?: number }): TRollupRoller {
  let running: Promise<number> | null = null;
  let failing = false;

  const roll = (): Promise<number> =>
    (running ??= opts.pool
      .query<{ n: string }>("select decision_rollup_roll() as n")
      .then((r) => {
        failing = false;
        return Number(r.rows[0]!.n);
      })
      .finally(() => {
        running = null;
      }));

  const tick = () =>
    void roll().catch((err: unknown) => {
      if (!failing) opts.log(`decision rollup: moving pending cells failed, retrying every second: ${(err as Error).message}`);
      failing = true;
    });
  const timer = setInterval(tick, opts.intervalMs ?? ROLL_INTERVAL_MS);
  timer.unref();

  return {
    rollNow: async () => {
      // A roll already under way may have taken its snapshot before the caller's last commit.
      if (running) await running.catch(() => {});
      return roll();
    },
    async close() {
      clearInterval(timer);
      await running?.catch(() => {});
      await roll().catch(() => {});
    },
  };
}
