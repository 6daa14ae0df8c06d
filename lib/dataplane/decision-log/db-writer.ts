import type pg from "pg";
import type { ConnectionKeeper } from "./connection-keeper";
import { maintainPartitions } from "./partitions";
import { isUnavailable, NO_PARTITION } from "./postgres-errors";
import { createListMemory, insertDecisions, type TDecisionWrite, type TExistingDecision } from "./rows";

export type TDbWriterOptions = {
  pool: pg.Pool;
  keeper: ConnectionKeeper;
  partitions: { daysAhead: number; retentionDays: number };
  now: () => number;
};

/** Writes a batch in one transaction on a kept connection; answers the rows another decision already holds. */
export function createDbWriter(opts: TDbWriterOptions) {
  const { keeper } = opts;
  // Candidate lists already committed (decision_candidates), so later rows only refer to them.
  let lists = createListMemory();

  async function writeOn(client: pg.PoolClient, batch: readonly TDecisionWrite[]): Promise<Map<string, TExistingDecision>> {
    let broken = false;
    try {
      try {
        return await insertDecisions(client, batch, lists);
      } catch (err) {
        if ((err as { code?: string }).code !== NO_PARTITION) throw err;
        // A day boundary passed without maintenance having run (or a clock jump): create and retry once.
        await maintainPartitions(opts.pool, { now: opts.now(), from: Math.min(...batch.map((p) => p.row.createdAt)), ...opts.partitions });
        return await insertDecisions(client, batch, lists);
      }
    } catch (err) {
      broken = isUnavailable(err) || keeper.isBroken(client);
      throw err;
    } finally {
      keeper.release(client, broken);
    }
  }

  return {
    /**
     * Forgets the committed candidate lists, after an outage: the database that comes back may
     * not be the one that went away (a failover to a lagging replica, a restore), and sending a
     * list again costs one row.
     */
    forgetLists(): void {
      lists = createListMemory();
    },

    async write(batch: readonly TDecisionWrite[]): Promise<Map<string, TExistingDecision>> {
      // No await when a spare is there: the batch goes out in this same turn of the event loop.
      const kept = keeper.spare();
      if (kept) {
        try {
          return await writeOn(kept, batch);
        } catch (err) {
          if (!isUnavailable(err)) throw err;
          // Its session may have ended while it waited, before its error arrived: once more on a new
          // connection, which fails as well if Postgres is away. A batch that did commit before the
          // session ended finds its own rows on the second try and is answered with them.
        }
      }
      return await writeOn(await keeper.connect(), batch);
    },
  };
}

export type DbWriter = ReturnType<typeof createDbWriter>;
