import type pg from "pg";
import { SpoolFullError, type Spool } from "../spool";
import { createLatencyHistogram } from "../metrics/latency-histogram";
import { createAvailability } from "./availability";
import type { TSpoolRange } from "./backlog";
import { createBatchQueue, type BatchQueue } from "./batch-queue";
import { createConnectionKeeper } from "./connection-keeper";
import { createDbWriter, type DbWriter } from "./db-writer";
import { createDecisionSpool, type DecisionSpool } from "./decision-spool";
import { isUnavailable } from "./postgres-errors";
import type { TDecisionRow, TExistingDecision, TStoredRecord } from "./rows";
import { createSpoolReplay } from "./spool-replay";
import type { TDecisionLogStore } from "./store";

export type TDurability = "sync" | "async";

/**
 * How a submitted decision was made durable. `committed`: in Postgres. `spooled`: fsynced to the
 * local spool while Postgres is unreachable (replayed later). `buffered`: async durability,
 * acknowledged before any write. `existing`: another decision for the same (operation,
 * requestId) was already logged within the idempotency window; answer with that one.
 */
export type TWriteOutcome = { status: "committed" | "spooled" | "buffered" } | { status: "existing"; existing: TExistingDecision };

/** The decision log cannot take more right now; the caller answers 503 with Retry-After. */
export class DecisionLogBusyError extends Error {
  constructor(
    message: string,
    readonly retryAfterSeconds: number,
  ) {
    super(message);
  }
}

export type TDecisionLogOptions = {
  pool: pg.Pool;
  spool: Spool<TDecisionRow>;
  durability: TDurability;
  /** Rows per transaction at most. */
  maxBatch?: number;
  /** Queued plus in-flight rows at most; beyond it submit() throws DecisionLogBusyError. */
  maxBuffered?: number;
  /**
   * Transactions in flight at once (default 1: the next batch fills while one commits, so each
   * transaction carries every row that arrived meanwhile; see lib/dataplane/README.md).
   */
  concurrency?: number;
  /** A transaction beyond the first in flight starts only with this many rows queued (batch-queue.ts); default any. */
  extraBatchAt?: number;
  /**
   * A row submitted less than this many ms after the one before waits up to this long for company
   * before its transaction starts (default 0: never). Under steady load this trades a millisecond
   * or two of each answer for fewer, larger transactions, whose fixed cost dominates Postgres's
   * work at a few rows each; rows further apart than that start at once.
   */
  lingerMs?: number;
  /** How often to probe Postgres while it is unreachable. */
  probeIntervalMs?: number;
  partitions: { daysAhead: number; retentionDays: number };
  onAvailability?: (up: boolean) => void;
  /**
   * Announces the spooled decisions' time range before a replay and withdraws it once the spool
   * is empty (backlog.ts), so other instances hold outcomes for them instead of refusing them.
   */
  backlog?: { announce(range: TSpoolRange): Promise<void>; withdraw(): Promise<void> };
  log?: (line: string) => void;
  now?: () => number;
  /** Another store for the rows (store.ts); default, the decision table in `pool`. */
  store?: TDecisionLogStore;
};

export type TDecisionLogStats = {
  durability: TDurability;
  queued: number;
  inFlight: number;
  dbUp: boolean;
  transactions: number;
  /** Wall time of those transactions, summed (from taking a connection to the commit's answer). */
  transactionMs: number;
  rowsCommitted: number;
  rowsSpooled: number;
  rowsReplayed: number;
  spool: ReturnType<Spool<TDecisionRow>["stats"]>;
};

/** `at`: performance.now() when submitted, for the wait histogram. */
type TPending = { row: TDecisionRow; stored: TStoredRecord | null; resolve: (o: TWriteOutcome) => void; reject: (e: unknown) => void; at: number };

type TWriterStats = Omit<TDecisionLogStats, "durability" | "queued" | "inFlight" | "dbUp" | "spool">;

/** What flushing a batch needs: the parts createDecisionLog wires together. */
type TFlushContext = {
  durability: TDurability;
  db: Pick<DbWriter, "write" | "forgetLists"> | { write: TDecisionLogStore["write"]; forgetLists(): void };
  spooled: DecisionSpool;
  availability: { readonly up: boolean; set(up: boolean): void };
  queue: BatchQueue<TPending>;
  stats: TWriterStats;
  /** Per group-commit transaction; and per decision, from submit until its row is durable (committed or spooled). */
  latency: { commitSeconds: ReturnType<typeof createLatencyHistogram>; waitSeconds: ReturnType<typeof createLatencyHistogram> };
  log: (line: string) => void;
};

function observeDurable(ctx: TFlushContext, batch: readonly TPending[]): void {
  const t = performance.now();
  for (const p of batch) ctx.latency.waitSeconds.observe((t - p.at) / 1000);
}

/** The batch in one transaction; false when Postgres cannot take it and the batch is for the spool. */
async function commitBatch(ctx: TFlushContext, batch: TPending[], handOff: () => void): Promise<boolean> {
  try {
    const started = performance.now();
    const existing = await ctx.db.write(batch);
    const ms = performance.now() - started;
    ctx.stats.transactionMs += ms;
    ctx.latency.commitSeconds.observe(ms / 1000);
    observeDurable(ctx, batch);
    ctx.stats.transactions++;
    ctx.stats.rowsCommitted += batch.length - existing.size;
    handOff();
    for (const p of batch) {
      const e = existing.get(p.row.id);
      if (e instanceof Error) p.reject(new DecisionLogBusyError(e.message, 1));
      else p.resolve(e ? { status: "existing", existing: e } : { status: "committed" });
    }
    return true;
  } catch (err) {
    if (!isUnavailable(err)) {
      if (ctx.durability === "sync") {
        for (const p of batch) p.reject(err);
        return true;
      }
      // Already acknowledged: keep it on disk rather than lose it; replay retries it.
      ctx.log(`decision log: batch rejected by Postgres, spooling it: ${(err as Error).message}`);
    } else ctx.availability.set(false);
    return false;
  }
}

async function spoolBatch(ctx: TFlushContext, batch: TPending[]): Promise<void> {
  try {
    await ctx.spooled.append(batch.map((p) => p.row));
    ctx.stats.rowsSpooled += batch.length;
    observeDurable(ctx, batch);
    for (const p of batch) p.resolve({ status: "spooled" });
  } catch (err) {
    if (ctx.durability === "sync") {
      const busy =
        err instanceof SpoolFullError ? new DecisionLogBusyError("decision log unavailable: Postgres is unreachable and the local spool is full", 5) : err;
      for (const p of batch) p.reject(busy);
      return;
    }
    // Acknowledged rows stay queued until the spool or Postgres takes them; the buffer bound
    // turns new decides away meanwhile.
    ctx.queue.requeue(batch);
  }
}

/** `handOff` (DB path only): the batch is committed; let the next one start before answering. */
async function flushBatch(ctx: TFlushContext, batch: TPending[], handOff: () => void): Promise<void> {
  if (ctx.availability.up && (await commitBatch(ctx, batch, handOff))) return;
  await spoolBatch(ctx, batch);
}

/**
 * The group-commit decision log. decide() submits a row; rows are flushed in batches, one
 * transaction each, while later rows queue behind the commit in progress, so the commit cost is
 * shared by every decision in the batch. With `sync` durability the submit resolves after the
 * commit (or the spool's fsync); with `async` it resolves at once and the bounded buffer rejects
 * rather than drops. When Postgres is unreachable, batches go to the spool and are replayed
 * when a probe finds it back. The parts: batch-queue.ts (what waits and when it leaves),
 * connection-keeper.ts and db-writer.ts (the transaction), decision-spool.ts and spool-replay.ts
 * (the outage path), availability.ts (the probe).
 */
export function createDecisionLog(opts: TDecisionLogOptions) {
  const maxBuffered = opts.maxBuffered ?? 50_000;
  const concurrency = opts.concurrency ?? 1;
  const lingerMs = opts.lingerMs ?? 0;
  let lastSubmitAt = -Infinity;
  const probeIntervalMs = opts.probeIntervalMs ?? 1000;
  const now = opts.now ?? Date.now;
  const log = opts.log ?? (() => {});
  const partitions = opts.partitions;
  let closed = false;

  const stats: TWriterStats = { transactions: 0, transactionMs: 0, rowsCommitted: 0, rowsSpooled: 0, rowsReplayed: 0 };
  const latency = { commitSeconds: createLatencyHistogram(), waitSeconds: createLatencyHistogram() };
  const keeper = createConnectionKeeper(opts.pool, concurrency);
  const store = opts.store;
  const db = store ? { write: store.write, forgetLists: () => {} } : createDbWriter({ pool: opts.pool, keeper, partitions, now });
  const spooled = createDecisionSpool(opts.spool);
  const replay = createSpoolReplay({
    pool: opts.pool,
    spooled,
    partitions,
    backlog: opts.backlog,
    log,
    now,
    onReplayed: (rows) => (stats.rowsReplayed += rows),
    onUnavailable: () => availability.set(false),
    mayContinue: () => availability.up && !closed,
    write: store?.replay,
  });
  const availability = createAvailability({
    pool: opts.pool,
    probeIntervalMs,
    probe: store?.probe,
    onChange: (up) => {
      opts.onAvailability?.(up);
      if (!up) return log("decision log: Postgres unreachable; spooling decisions to disk");
      log("decision log: Postgres reachable again");
      db.forgetLists();
      void replay.start();
    },
  });
  const queue: BatchQueue<TPending> = createBatchQueue<TPending>({
    maxBatch: opts.maxBatch ?? 2000,
    concurrency,
    extraBatchAt: opts.extraBatchAt,
    retryMs: probeIntervalMs,
    write: (batch, handOff) => flushBatch(ctx, batch, handOff),
  });
  const ctx: TFlushContext = { durability: opts.durability, db, spooled, availability, queue, stats, latency, log };

  return {
    durability: opts.durability,

    /**
     * `stored`: the record split from its candidate list (decide/body.ts), as the table keeps it;
     * without it the row's body is stored whole. The spool always keeps the row as it is.
     *
     * `deferMs`: the caller has other work before it needs the row durable (execute calls the
     * provider first), so the row waits for company: it goes with the next batch something else
     * starts, at the caller's demand(), or after deferMs at the latest. Fewer, larger transactions;
     * each costs Postgres about as much fixed as several rows.
     */
    submit(row: TDecisionRow, stored: TStoredRecord | null = null, deferMs?: number): Promise<TWriteOutcome> {
      if (closed) return Promise.reject(new DecisionLogBusyError("decision log is shutting down", 1));
      if (queue.queued + queue.inFlight >= maxBuffered) {
        return Promise.reject(new DecisionLogBusyError(`decision log buffer is full (${maxBuffered} decisions)`, 1));
      }
      const at = performance.now();
      const wait = deferMs ?? (at - lastSubmitAt < lingerMs ? lingerMs : undefined);
      lastSubmitAt = at;
      if (opts.durability === "async") {
        queue.add({ row, stored, resolve: noop, reject: noop, at }, wait);
        return BUFFERED;
      }
      return new Promise((resolve, reject) => queue.add({ row, stored, resolve, reject, at }, wait));
    },

    /** A caller now waits on a deferred row: write what is queued (in the next turn of the event loop, with whatever else arrives by then). */
    demand: (): void => queue.demand(),

    /** Replays anything an earlier process or outage left in the spool. */
    replaySpool: (): Promise<void> => (availability.up ? replay.start() : Promise.resolve()),

    /** Resolves when nothing is queued or in flight. */
    drain: (): Promise<void> => queue.drain(),

    get dbUp(): boolean {
      return availability.up;
    },

    /** Commit time per group-commit transaction and each decision's wait until durable, as Prometheus histograms. */
    latency: () => latency,

    stats: (): TDecisionLogStats => ({
      durability: opts.durability,
      queued: queue.queued,
      inFlight: queue.inFlight,
      dbUp: availability.up,
      ...stats,
      spool: opts.spool.stats(),
    }),

    async close(): Promise<void> {
      await queue.drain();
      closed = true;
      queue.close();
      availability.stop();
      await replay.running;
      keeper.close();
      await opts.spool.close();
    },
  };
}

export type DecisionLog = ReturnType<typeof createDecisionLog>;

const noop = () => {};
const BUFFERED: Promise<TWriteOutcome> = Promise.resolve({ status: "buffered" });
