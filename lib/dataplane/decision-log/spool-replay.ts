import type pg from "pg";
import type { DecisionSpool } from "./decision-spool";
import { maintainPartitions } from "./partitions";
import { isUnavailable } from "./postgres-errors";
import { replayDecisions, type TDecisionRow } from "./rows";

export type TSpoolReplayOptions = {
  pool: pg.Pool;
  spooled: DecisionSpool;
  partitions: { daysAhead: number; retentionDays: number };
  /**
   * Announces the spooled decisions' time range before a replay and withdraws it once the spool
   * is empty (backlog.ts), so other instances hold outcomes for them instead of refusing them.
   */
  backlog?: { announce(range: DecisionSpool["range"]): Promise<void>; withdraw(): Promise<void> };
  log: (line: string) => void;
  now: () => number;
  onReplayed: (rows: number) => void;
  /** A replay failed for want of Postgres. */
  onUnavailable: () => void;
  /** Whether to go again for rows spooled during a pass (Postgres up and the log open). */
  mayContinue: () => boolean;
  /** Writes replayed rows to another store (lib/decision-store) instead of the decision table. */
  write?: (rows: readonly TDecisionRow[]) => Promise<void>;
};

/** Replays the decision spool into Postgres, one pass at a time. */
export function createSpoolReplay(opts: TSpoolReplayOptions) {
  const { spool } = opts.spooled;
  const log = opts.log;
  let replaying: Promise<void> | null = null;

  /**
   * The backlog announcement only helps other instances match early outcomes: if it cannot be
   * written (other than for Postgres being unreachable, which stops the replay anyway), the
   * replay goes on without it.
   */
  async function bestEffort(what: string, p: Promise<void>): Promise<void> {
    try {
      await p;
    } catch (err) {
      if (isUnavailable(err)) throw err;
      log(`decision log: could not ${what} the spool backlog, replaying anyway: ${(err as Error).message}`);
    }
  }

  /** One pass over the spool; `replayed` is called once every segment it saw is in Postgres. */
  async function pass(replayed: () => void): Promise<void> {
    const backlog = opts.backlog;
    if (backlog) await bestEffort("announce", backlog.announce(opts.spooled.range));
    const n = await spool.replay(async (rows) => {
      if (opts.write) {
        await opts.write(rows);
        return opts.onReplayed(rows.length);
      }
      const oldest = Math.min(...rows.map((r) => r.createdAt));
      await maintainPartitions(opts.pool, { now: opts.now(), from: oldest, ...opts.partitions });
      const client = await opts.pool.connect();
      try {
        await replayDecisions(client, rows);
      } finally {
        client.release();
      }
      opts.onReplayed(rows.length);
    });
    if (n > 0) log(`decision log: replayed ${n} spooled decisions into Postgres`);
    replayed();
    if (!spool.hasPending()) {
      opts.spooled.emptied();
      if (backlog) await bestEffort("withdraw", backlog.withdraw());
    }
  }

  function start(): Promise<void> {
    if (replaying || !spool.hasPending()) return replaying ?? Promise.resolve();
    let replayed = false;
    replaying = (async () => {
      try {
        await pass(() => (replayed = true));
      } catch (err) {
        log(`decision log: replay stopped, will retry: ${(err as Error).message}`);
        if (isUnavailable(err)) opts.onUnavailable();
      } finally {
        replaying = null;
      }
      // Rows spooled while this pass ran (a batch that failed during recovery, whose probe found
      // Postgres back while the pass was still running) sit in a segment the pass never saw, and
      // with Postgres already up nothing else would replay them: go again.
      if (replayed && opts.mayContinue() && spool.hasPending()) void start();
    })();
    return replaying;
  }

  return {
    start,
    /** The pass in progress, if any. */
    get running(): Promise<void> | null {
      return replaying;
    },
  };
}
