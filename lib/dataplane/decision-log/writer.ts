import type pg from "pg";
import { SpoolFullError, type Spool } from "../spool";
import { maintainPartitions } from "./partitions";
import type { TSpoolRange } from "./backlog";
import { createListMemory, insertDecisions, replayDecisions, type TDecisionRow, type TExistingDecision, type TStoredRecord } from "./rows";
import { createLatencyHistogram } from "../metrics/latency-histogram";

export type TDurability = "sync" | "async";

/**
 * How a submitted decision was made durable. `committed`: in Postgres. `spooled`: fsynced to the
 * local spool while Postgres is unreachable (replayed later). `buffered`: async durability,
 * acknowledged before any write. `existing`: another decision for the same (operation,
 * requestId) was already logged within the idempotency window; answer with that one.
 */
export type TWriteOutcome =
  | { status: "committed" | "spooled" | "buffered" }
  | { status: "existing"; existing: TExistingDecision };

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

/** SQLSTATEs meaning "cannot reach or use the server", as opposed to a bad statement. */
function isUnavailable(err: unknown): boolean {
  const e = err as { code?: unknown; severity?: unknown; message?: unknown };
  // Errors the server did not send (refused, reset, timeouts, "Connection terminated") carry no severity.
  if (typeof e?.severity !== "string") return true;
  const code = typeof e.code === "string" ? e.code : "";
  if (code.startsWith("08") || code.startsWith("57P") || code === "53300") return true;
  return code === "55000" && /accepting connections/.test(String(e.message));
}

const NO_PARTITION = "23514";

/**
 * The group-commit decision log. decide() submits a row; rows are flushed in batches, one
 * transaction each, while later rows queue behind the commit in progress, so the commit cost is
 * shared by every decision in the batch. With `sync` durability the submit resolves after the
 * commit (or the spool's fsync); with `async` it resolves at once and the bounded buffer rejects
 * rather than drops. When Postgres is unreachable, batches go to the spool and are replayed
 * when a probe finds it back.
 */
export function createDecisionLog(opts: TDecisionLogOptions) {
  const maxBatch = opts.maxBatch ?? 2000;
  const maxBuffered = opts.maxBuffered ?? 50_000;
  const concurrency = opts.concurrency ?? 1;
  const probeIntervalMs = opts.probeIntervalMs ?? 1000;
  const now = opts.now ?? Date.now;
  const log = opts.log ?? (() => {});

  let queue: TPending[] = [];
  // Whether the queue is to be written now. Deferred rows (submit's deferMs) alone do not make it
  // so; a row that is not deferred, a demand() or their timer does, and any batch takes them along.
  let ready = false;
  let deferTimer: NodeJS.Timeout | null = null;
  let inFlightRows = 0;
  let inFlight = 0;
  let dbUp = true;
  let closed = false;
  let scheduled = false;
  let probeTimer: NodeJS.Timeout | null = null;
  let retryTimer: NodeJS.Timeout | null = null;
  let replaying: Promise<void> | null = null;
  const idle = new Set<() => void>();
  // The connections the writer keeps between its transactions (at most one per transaction in
  // flight). Taking one from the pool for every batch cost a process.nextTick, which runs only once
  // every answer the last commit released has been written: the next batch left about as late as
  // those writes took (tens of µs each) while Postgres sat idle.
  const spare: pg.PoolClient[] = [];
  // Every connection the writer has out of the pool, with its error listener, which marks it
  // broken if its session fails while it waits.
  const taken = new Map<pg.PoolClient, { broken: boolean; onError: () => void }>();
  const isBroken = (client: pg.PoolClient) => taken.get(client)?.broken === true;
  // Candidate lists already committed (decision_candidates), so later rows only refer to them.
  // Forgotten after an outage: the database that comes back may not be the one that went away
  // (a failover to a lagging replica, a restore), and sending a list again costs one row.
  let lists = createListMemory();
  const stats = { transactions: 0, transactionMs: 0, rowsCommitted: 0, rowsSpooled: 0, rowsReplayed: 0 };
  // Per group-commit transaction; and per decision, from submit until its row is durable (committed or spooled).
  const commitSeconds = createLatencyHistogram();
  const waitSeconds = createLatencyHistogram();
  const durable = (batch: readonly TPending[]) => {
    const t = performance.now();
    for (const p of batch) waitSeconds.observe((t - p.at) / 1000);
  };
  /** createdAt range of the rows this process spooled and has not replayed; null bounds when the spool predates it. */
  let spooledRange: TSpoolRange | null = opts.spool.hasPending() ? { oldest: null, newest: null } : null;

  function setDbUp(up: boolean): void {
    if (dbUp === up) return;
    dbUp = up;
    opts.onAvailability?.(up);
    if (up) {
      log("decision log: Postgres reachable again");
      lists = createListMemory();
      if (probeTimer) clearInterval(probeTimer);
      probeTimer = null;
      void startReplay();
    } else {
      log("decision log: Postgres unreachable; spooling decisions to disk");
      probeTimer ??= setInterval(() => void probe(), probeIntervalMs);
      probeTimer.unref();
    }
  }

  async function probe(): Promise<void> {
    try {
      await opts.pool.query("select 1");
      setDbUp(true);
    } catch {
      // Still down; the next tick tries again.
    }
  }

  function schedule(): void {
    if (scheduled || closed) return;
    scheduled = true;
    // setImmediate lets every request parsed in this turn of the event loop join the batch.
    setImmediate(() => {
      scheduled = false;
      pump();
    });
  }

  function pump(): void {
    while (queue.length > 0 && inFlight < concurrency && ready) {
      const batch = queue.length <= maxBatch ? queue : queue.slice(0, maxBatch);
      queue = queue.length <= maxBatch ? [] : queue.slice(maxBatch);
      // The rest of an oversized queue goes next, deferred or not.
      ready = queue.length > 0;
      if (!ready && deferTimer) {
        clearTimeout(deferTimer);
        deferTimer = null;
      }
      inFlight++;
      inFlightRows += batch.length;
      let done = false;
      const finish = () => {
        if (done) return;
        done = true;
        inFlight--;
        inFlightRows -= batch.length;
      };
      // A committed batch hands its place on to the next one before its callers are answered.
      const handOff = () => {
        finish();
        pump();
      };
      void flush(batch, handOff).finally(() => {
        finish();
        if (queue.length > 0) pump();
        else if (inFlight === 0) for (const fn of idle) fn();
      });
    }
  }

  /** A spare connection that is still usable (broken ones go back to the pool to be closed). */
  function spareClient(): pg.PoolClient | undefined {
    for (let c = spare.pop(); c !== undefined; c = spare.pop()) {
      if (!isBroken(c)) return c;
      giveBack(c, true);
    }
    return undefined;
  }

  /** A new connection from the pool; an error of its session while it waits marks it broken. */
  async function newClient(): Promise<pg.PoolClient> {
    const client = await opts.pool.connect();
    const state = { broken: false, onError: () => (state.broken = true) };
    client.on("error", state.onError);
    taken.set(client, state);
    return client;
  }

  function giveBack(client: pg.PoolClient, broken: boolean): void {
    const state = taken.get(client);
    if (state) client.off("error", state.onError);
    taken.delete(client);
    client.release(broken);
  }

  async function writeToDb(batch: TPending[]): Promise<Map<string, TExistingDecision>> {
    // No await when a spare is there: the batch goes out in this same turn of the event loop.
    const kept = spareClient();
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
    return await writeOn(await newClient(), batch);
  }

  async function writeOn(client: pg.PoolClient, batch: TPending[]): Promise<Map<string, TExistingDecision>> {
    let broken = false;
    try {
      try {
        return await insertDecisions(client, batch, lists);
      } catch (err) {
        if ((err as { code?: string }).code !== NO_PARTITION) throw err;
        // A day boundary passed without maintenance having run (or a clock jump): create and retry once.
        await maintainPartitions(opts.pool, { now: now(), from: Math.min(...batch.map((p) => p.row.createdAt)), ...opts.partitions });
        return await insertDecisions(client, batch, lists);
      }
    } catch (err) {
      broken = isUnavailable(err) || isBroken(client);
      throw err;
    } finally {
      if (broken || closed || spare.length >= concurrency) giveBack(client, broken);
      else spare.push(client);
    }
  }

  /** `handOff` (DB path only): the batch is committed; let the next one start before answering. */
  async function flush(batch: TPending[], handOff: () => void): Promise<void> {
    if (dbUp) {
      try {
        const started = performance.now();
        const existing = await writeToDb(batch);
        const ms = performance.now() - started;
        stats.transactionMs += ms;
        commitSeconds.observe(ms / 1000);
        durable(batch);
        stats.transactions++;
        stats.rowsCommitted += batch.length - existing.size;
        handOff();
        for (const p of batch) {
          const e = existing.get(p.row.id);
          p.resolve(e ? { status: "existing", existing: e } : { status: "committed" });
        }
        return;
      } catch (err) {
        if (!isUnavailable(err)) {
          if (opts.durability === "sync") {
            for (const p of batch) p.reject(err);
            return;
          }
          // Already acknowledged: keep it on disk rather than lose it; replay retries it.
          log(`decision log: batch rejected by Postgres, spooling it: ${(err as Error).message}`);
        } else setDbUp(false);
      }
    }
    try {
      await opts.spool.append(batch.map((p) => p.row));
      stats.rowsSpooled += batch.length;
      durable(batch);
      let oldest = spooledRange?.oldest ?? Infinity;
      let newest = spooledRange?.newest ?? -Infinity;
      for (const p of batch) {
        oldest = Math.min(oldest, p.row.createdAt);
        newest = Math.max(newest, p.row.createdAt);
      }
      // A range already unknown (a spool left by an earlier process) stays unknown.
      spooledRange = spooledRange !== null && spooledRange.oldest === null ? spooledRange : { oldest, newest };
      for (const p of batch) p.resolve({ status: "spooled" });
    } catch (err) {
      if (opts.durability === "sync") {
        const busy =
          err instanceof SpoolFullError
            ? new DecisionLogBusyError("decision log unavailable: Postgres is unreachable and the local spool is full", 5)
            : err;
        for (const p of batch) p.reject(busy);
        return;
      }
      // Acknowledged rows stay queued until the spool or Postgres takes them; the buffer bound
      // turns new decides away meanwhile.
      queue = batch.concat(queue);
      ready = true;
      retryTimer ??= setTimeout(() => {
        retryTimer = null;
        pump();
      }, probeIntervalMs);
      retryTimer.unref();
    }
  }

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

  async function startReplay(): Promise<void> {
    if (replaying || !opts.spool.hasPending()) return replaying ?? undefined;
    let replayed = false;
    replaying = (async () => {
      try {
        if (opts.backlog) await bestEffort("announce", opts.backlog.announce(spooledRange ?? { oldest: null, newest: null }));
        const n = await opts.spool.replay(async (rows) => {
          const oldest = Math.min(...rows.map((r) => r.createdAt));
          await maintainPartitions(opts.pool, { now: now(), from: oldest, ...opts.partitions });
          const client = await opts.pool.connect();
          try {
            await replayDecisions(client, rows);
          } finally {
            client.release();
          }
          stats.rowsReplayed += rows.length;
        });
        if (n > 0) log(`decision log: replayed ${n} spooled decisions into Postgres`);
        replayed = true;
        if (!opts.spool.hasPending()) {
          spooledRange = null;
          if (opts.backlog) await bestEffort("withdraw", opts.backlog.withdraw());
        }
      } catch (err) {
        log(`decision log: replay stopped, will retry: ${(err as Error).message}`);
        if (isUnavailable(err)) setDbUp(false);
      } finally {
        replaying = null;
      }
      // Rows spooled while this pass ran (a batch that failed during recovery, whose probe found
      // Postgres back while the pass was still running) sit in a segment the pass never saw, and
      // with dbUp already true nothing else would replay them: go again.
      if (replayed && dbUp && !closed && opts.spool.hasPending()) void startReplay();
    })();
    return replaying;
  }

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
      if (queue.length + inFlightRows >= maxBuffered) {
        return Promise.reject(new DecisionLogBusyError(`decision log buffer is full (${maxBuffered} decisions)`, 1));
      }
      if (deferMs === undefined) {
        ready = true;
        schedule();
      } else {
        deferTimer ??= setTimeout(() => {
          deferTimer = null;
          ready = true;
          pump();
        }, deferMs);
      }
      if (opts.durability === "async") {
        queue.push({ row, stored, resolve: noop, reject: noop, at: performance.now() });
        return BUFFERED;
      }
      return new Promise((resolve, reject) => queue.push({ row, stored, resolve, reject, at: performance.now() }));
    },

    /** A caller now waits on a deferred row: write what is queued (in the next turn of the event loop, with whatever else arrives by then). */
    demand(): void {
      if (queue.length === 0 || ready) return;
      ready = true;
      schedule();
    },

    /** Replays anything an earlier process or outage left in the spool. */
    replaySpool(): Promise<void> {
      return dbUp ? startReplay() : Promise.resolve();
    },

    /** Resolves when nothing is queued or in flight. */
    drain(): Promise<void> {
      if (queue.length === 0 && inFlight === 0) return Promise.resolve();
      return new Promise((resolve) => {
        const done = () => {
          if (queue.length > 0 || inFlight > 0) return;
          idle.delete(done);
          resolve();
        };
        idle.add(done);
        ready = queue.length > 0;
        pump();
      });
    },

    get dbUp(): boolean {
      return dbUp;
    },

    /** Commit time per group-commit transaction and each decision's wait until durable, as Prometheus histograms. */
    latency: () => ({ commitSeconds, waitSeconds }),

    stats(): TDecisionLogStats {
      return { durability: opts.durability, queued: queue.length, inFlight: inFlightRows, dbUp, ...stats, spool: opts.spool.stats() };
    },

    async close(): Promise<void> {
      await this.drain();
      closed = true;
      if (deferTimer) clearTimeout(deferTimer);
      if (probeTimer) clearInterval(probeTimer);
      if (retryTimer) clearTimeout(retryTimer);
      await replaying;
      for (const c of spare.splice(0)) giveBack(c, false);
      await opts.spool.close();
    },
  };
}

export type DecisionLog = ReturnType<typeof createDecisionLog>;

const noop = () => {};
const BUFFERED: Promise<TWriteOutcome> = Promise.resolve({ status: "buffered" });
