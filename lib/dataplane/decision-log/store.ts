import type { TOutcomeStore, TStoredOutcome } from "../telemetry/outcomes";
import type pg from "pg";
import type { TDecisionRow, TDecisionWrite, TExistingDecision } from "./rows";

/**
 * Where batches go instead of the decision table (lib/decision-store: ClickHouse). `write`
 * answers, by input row id, the decision that holds the row's idempotency key, or an error for a
 * row that cannot be answered yet (503). Failures are classified as Postgres's are: an error
 * without `severity` is an outage (spool, probe), one with it a rejection.
 */
export type TDecisionLogStore = {
  write(batch: readonly TDecisionWrite[]): Promise<Map<string, TExistingDecision | Error>>;
  replay(rows: readonly TDecisionRow[]): Promise<void>;
  /** Resolves once the store answers again. */
  probe(): Promise<void>;
};

/** A decision row as another store returns it (no record unless asked). */
export type TStoredDecision = {
  id: string;
  at: number;
  operation: string;
  region: string;
  requestId: string;
  policyVersion: string | null;
  selected: string | null;
  reasonCode: string;
  shadowPick: string | null;
  shadowAgrees: boolean | null;
  scoreMargin: number | null;
  stale: boolean;
  metricAgeMs: number | null;
  fallbackAction: string | null;
  degraded: boolean;
  durability: string;
  instanceId: string;
  apiKeyId: string | null;
  offeredProviders: string | null;
};

/** The data plane's reads from another store: lookups by id (outcome validation, GET /decisions/:id). */
export type TDecisionReadStore = {
  find(ids: readonly string[]): Promise<TStoredDecision[]>;
  get(id: string): Promise<(TStoredDecision & { record: string }) | null>;
  /** Where this store keeps the decisions' outcomes; absent: in Postgres's outcome tables. */
  outcomes?: TOutcomeStore & { list(decisionId: string): Promise<TStoredOutcome[]> };
};

/** A decision store other than the decision table, opened by the composition root on the data plane's pool. */
export type TDecisionStoreHandle = {
  /** For the start-up log line. */
  describe: string;
  log: TDecisionLogStore;
  /** Batches this store takes at once, when it wants more than DECISION_LOG_CONCURRENCY (ClickHouse: inserts in flight). */
  logConcurrency?: number;
  reads: TDecisionReadStore;
  /** Hourly maintenance. */
  maintain(now: number): Promise<void>;
  close(): Promise<void>;
};

export type TOpenDecisionStore = (pool: pg.Pool) => Promise<TDecisionStoreHandle>;
