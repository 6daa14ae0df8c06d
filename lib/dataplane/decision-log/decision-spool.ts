import type { Spool } from "../spool";
import type { TSpoolRange } from "./backlog";
import type { TDecisionRow } from "./rows";

/**
 * The decision spool with the createdAt range of the rows this process spooled and has not
 * replayed, which the backlog announcement carries (backlog.ts). The range has null bounds when
 * the spool holds rows from before this process (an earlier process or outage left them).
 */
export function createDecisionSpool(spool: Spool<TDecisionRow>) {
  let range: TSpoolRange | null = spool.hasPending() ? { oldest: null, newest: null } : null;
  return {
    spool,

    /** The range to announce: unknown bounds when nothing is recorded. */
    get range(): TSpoolRange {
      return range ?? { oldest: null, newest: null };
    },

    /** Appends (fsynced) and widens the range. */
    async append(rows: readonly TDecisionRow[]): Promise<void> {
      await spool.append(rows);
      let oldest = range?.oldest ?? Infinity;
      let newest = range?.newest ?? -Infinity;
      for (const r of rows) {
        oldest = Math.min(oldest, r.createdAt);
        newest = Math.max(newest, r.createdAt);
      }
      // A range already unknown (a spool left by an earlier process) stays unknown.
      range = range !== null && range.oldest === null ? range : { oldest, newest };
    },

    /** Everything spooled has been replayed. */
    emptied(): void {
      range = null;
    },
  };
}

export type DecisionSpool = ReturnType<typeof createDecisionSpool>;
