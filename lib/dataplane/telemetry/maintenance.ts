import type pg from "pg";
import type { RoutingState } from "../routing-state";
import type { Spool } from "../spool";
import type { BreakerSync } from "./breaker-sync";
import type { BreakerBank } from "./breakers";
import type { OutcomeService, TPendingOutcome } from "./outcomes";

const MAINTENANCE_MS = 1_000;

export type TMaintenanceDeps = {
  pool: pg.Pool;
  state: RoutingState;
  breakers: BreakerBank;
  breakerSync: BreakerSync;
  outcomes: OutcomeService;
  spool: Spool<TPendingOutcome> | null;
  log: (line: string) => void;
};

/**
 * Telemetry's once-a-second chores: the breakers' timers and their state rows, and replaying the
 * outcome spool once Postgres is back. A pass still running when the next is due is not doubled.
 */
export function startMaintenance(deps: TMaintenanceDeps): { stop(): void } {
  const { pool, state, breakers, breakerSync, outcomes, spool, log } = deps;
  let maintaining = false;

  async function replaySpool(from: Spool<TPendingOutcome>): Promise<void> {
    let written = 0;
    await from
      .replay(async (items) => {
        const r = await outcomes.replay(items);
        written += r.written;
        if (r.unknown > 0) log(`outcome spool: dropped ${r.unknown} outcomes whose decision is still unknown after the grace period`);
        if (r.refused > 0)
          log(`outcome spool: refused ${r.refused} outcomes on replay (another operation's decision, a provider it did not offer, over the bound)`);
      }, 500)
      .catch(() => 0);
    if (written > 0) log(`outcome spool: replayed ${written} outcomes`);
  }

  async function maintain(): Promise<void> {
    if (maintaining) return;
    maintaining = true;
    try {
      breakers.tick();
      breakerSync.tick();
      await breakers.flush(pool).catch(() => {});
      // Replay only once the decision log's probe sees Postgres again; each failed attempt would start a new segment.
      if (spool?.hasPending() && state.dbAvailable) await replaySpool(spool);
    } finally {
      maintaining = false;
    }
  }

  const timer = setInterval(() => void maintain(), MAINTENANCE_MS);
  timer.unref();
  return { stop: () => clearInterval(timer) };
}
