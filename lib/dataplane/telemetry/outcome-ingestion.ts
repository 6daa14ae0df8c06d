import path from "node:path";
import type pg from "pg";
import { mayBeSpooled as mayBeSpooledDecision, readBacklog, type TBacklogRow } from "../decision-log/backlog";
import { findDecisions } from "../decision-log/lookup";
import type { TDecisionReadStore } from "../decision-log/store";
import type { RoutingState } from "../routing-state";
import { createSpool } from "../spool";
import type { BreakerBank } from "./breakers";
import type { MetricSync } from "./metric-sync";
import { createOutcomeService, type TDecisionLookup, type TDecisionRef, type TPendingOutcome } from "./outcomes";

/** How long other instances' spool announcements are reused before they are read again (only unknown decisions read them). */
const BACKLOG_CACHE_MS = 100;

export type TOutcomeIngestionOptions = {
  pool: pg.Pool;
  state: RoutingState;
  metrics: MetricSync;
  breakers: BreakerBank;
  /** Directory for the outcome spool; null: outcomes fail with 503 while Postgres is unreachable. */
  spoolDir: string | null;
  spoolMaxBytes?: number;
  /** ClickHouse mode: decisions are looked up there (lib/decision-store). */
  decisionReads?: TDecisionReadStore | null;
};

/** Finds outcomes' decisions in the decision table, by id. */
function decisionLookup(pool: pg.Pool, reads: TDecisionReadStore | null): TDecisionLookup {
  return async (ids) => {
    const found = await findDecisions(pool, ids, reads);
    const out = new Map<string, TDecisionRef>();
    for (const id of ids) {
      const d = found.get(id.toLowerCase());
      if (d) out.set(id, { operation: d.operation, region: d.region, selected: d.selectedProvider, offered: d.offeredProviders, stored: d.stored });
    }
    return out;
  };
}

/** Which unknown decisions another instance may still hold in its spool (backlog.ts), from announcements reused for BACKLOG_CACHE_MS. */
function spooledElsewhere(pool: pg.Pool, state: RoutingState): (ids: string[]) => Promise<ReadonlySet<string>> {
  let backlog: { rows: TBacklogRow[]; at: number } | null = null;
  return async (ids) => {
    const t = Date.now();
    if (backlog === null || t - backlog.at >= BACKLOG_CACHE_MS) backlog = { rows: await readBacklog(pool), at: t };
    const outage = state.lastDbOutage;
    const rows = backlog.rows;
    return new Set(ids.filter((id) => mayBeSpooledDecision(id, rows, outage, t)));
  };
}

/** The outcome service with its spool, matching outcomes to decisions through the decision table. */
export function createOutcomeIngestion(opts: TOutcomeIngestionOptions) {
  const { pool, state } = opts;
  const spool = opts.spoolDir
    ? createSpool<TPendingOutcome>({ dir: path.resolve(opts.spoolDir), name: "outcomes", maxBytes: opts.spoolMaxBytes ?? 256 * 1024 * 1024 })
    : null;
  const outcomes = createOutcomeService({
    pool,
    state,
    lookup: decisionLookup(pool, opts.decisionReads ?? null),
    store: opts.decisionReads?.outcomes ?? null,
    metrics: opts.metrics,
    breakers: opts.breakers,
    spool,
    mayBeSpooled: spooledElsewhere(pool, state),
  });
  return { outcomes, spool };
}
