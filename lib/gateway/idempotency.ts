import type pg from "pg";
import { ContractError } from "../edge";
import { isConnectionError } from "../dataplane";

/** A stored answer: what the caller got, replayed verbatim for a repeat. */
export type TStoredAnswer = { status: number; body: string; headers: Record<string, string> };

/** What the executing caller may do with the key it holds. */
export type TIdempotencyLease = {
  /** Providers a previous holder of the key already called (a takeover must not call them again). */
  attempted: readonly string[];
  /** Records a provider before it is called, so a crash leaves it marked. */
  markAttempt(provider: string): Promise<void>;
  /** The provider certainly did not execute the request (connection refused, 429): it may be called again. */
  unmarkAttempt(provider: string): Promise<void>;
};

/** A stored answer with the fingerprint of the request it answered (absent in rows stored before it was recorded). */
type TStoredRow = TStoredAnswer & { request?: string };

/** The key was used for another request: refused, as the IETF Idempotency-Key draft and Stripe do, instead of replaying another request's answer. */
function keyReused(operation: string): ContractError {
  return new ContractError(
    "idempotency_key_reused",
    `this Idempotency-Key (or requestId) was used within the idempotency window for a different ${operation} request; send a new key for a new request`,
    "idempotency-key",
  );
}

/** Stored answers are definitive ones; `release` keeps the attempted providers but lets a later repeat run. */
export type TRunResult = { answer: TStoredAnswer; definitive: boolean };

const POLL_MS = 25;

/**
 * Idempotency-Key: at most one execution per (operation, key) per provider within the window.
 * Two layers, as in the decide path: an in-process promise map (concurrent repeats on this
 * instance wait for the first and get its answer without touching Postgres), and the
 * gateway_idempotency table, which makes the claim hold across instances and restarts: the
 * first claimant inserts a `running` row with a lease; a repeat finds it and polls until it is
 * `done` (stored answer replayed) or its lease lapsed (the holder died: the repeat takes it over,
 * skipping the providers the row says were already called). Non-definitive answers (every
 * provider failed transiently) are not stored: the row returns to `open` so a later repeat may
 * run, again without the providers already called. With Postgres unreachable, only the
 * in-process layer holds. A repeat whose request fingerprint differs from the one that holds or
 * answered the key gets 422 idempotency_key_reused (a key left `open` by a non-definitive answer
 * may be taken over by another request: the table has no column for the fingerprint until then).
 */
export function createIdempotencyStore(opts: TStoreOptions) {
  const inflight = new Map<string, { fingerprint: string; answer: Promise<TStoredAnswer> }>();
  return {
    /**
     * Runs `exec` at most once for (operation, key) across this instance's concurrent callers and,
     * through Postgres, across instances; repeats of the same request (`fingerprint`) get the
     * stored answer with `replayed: true`, another request under the key a 422.
     */
    async run(
      operation: string,
      key: string,
      fingerprint: string,
      windowMs: number,
      leaseMs: number,
      exec: (lease: TIdempotencyLease) => Promise<TRunResult>,
    ): Promise<{ answer: TStoredAnswer; replayed: boolean }> {
      const k = `${operation}\u001f${key}`;
      const pending = inflight.get(k);
      if (pending) {
        if (pending.fingerprint !== fingerprint) throw keyReused(operation);
        return { answer: await pending.answer, replayed: true };
      }
      const p = runOwned(opts, { operation, key, fingerprint, windowMs, leaseMs }, exec);
      const answer = p.then((r) => r.answer);
      // Waiters see a failure through their own await; with none, it must not surface as unhandled.
      answer.catch(() => {});
      inflight.set(k, { fingerprint, answer });
      try {
        return await p;
      } finally {
        inflight.delete(k);
      }
    },
    /** Deletes keys past their window. */
    async prune(): Promise<number> {
      const r = await opts.pool.query(`delete from gateway_idempotency where expires_at < $1 and state <> 'running'`, [new Date(opts.now())]);
      return r.rowCount ?? 0;
    },
  };
}

type TStoreOptions = { pool: pg.Pool; ownerId: string; now: () => number; log: (line: string) => void };

/** One keyed request: which operation and key, the request's fingerprint, and the window and lease lengths. */
type TKeyed = { operation: string; key: string; fingerprint: string; windowMs: number; leaseMs: number };

/** What waiting for the durable claim ended with: a stored answer to replay, or the key held (durably or on this instance only). */
type TClaimed = { replayed: TStoredAnswer } | { attempted: string[]; durable: boolean };

async function claim(
  opts: TStoreOptions,
  operation: string,
  key: string,
  windowMs: number,
  leaseMs: number,
): Promise<{ attempted: string[] } | { done: TStoredRow } | { wait: true }> {
  const { pool } = opts;
  const t = opts.now();
  const r = await pool.query<{ attempted: string[] }>({
    name: "idempotency_claim",
    text: `insert into gateway_idempotency as g (operation_key, key, state, attempted, owner_id, lease_until, expires_at)
       values ($1, $2, 'running', '{}', $3, $4, $5)
       on conflict (operation_key, key) do update
         set state = 'running', owner_id = $3, lease_until = $4, http_status = null, response = null,
             attempted = case when g.expires_at <= $6 then '{}' else g.attempted end,
             expires_at = case when g.expires_at <= $6 then $5 else g.expires_at end
         where g.expires_at <= $6 or g.state = 'open' or (g.state = 'running' and g.lease_until <= $6)
       returning attempted`,
    values: [operation, key, opts.ownerId, new Date(t + leaseMs), new Date(t + windowMs), new Date(t)],
  });
  if (r.rowCount === 1) return { attempted: r.rows[0]!.attempted };
  const existing = await pool.query<{ state: string; http_status: number | null; response: string | null }>(
    `select state, http_status, response from gateway_idempotency where operation_key = $1 and key = $2`,
    [operation, key],
  );
  const row = existing.rows[0];
  if (row?.state === "done" && row.response !== null) return { done: JSON.parse(row.response) as TStoredRow };
  return { wait: true };
}

/** Claims the key, polling while another holder runs; with Postgres unreachable the key holds on this instance only. */
async function claimOrWait(opts: TStoreOptions, q: TKeyed): Promise<TClaimed> {
  for (;;) {
    let c: Awaited<ReturnType<typeof claim>>;
    try {
      c = await claim(opts, q.operation, q.key, q.windowMs, q.leaseMs);
    } catch (err) {
      if (!isConnectionError(err)) throw err;
      opts.log(`gateway idempotency: Postgres unreachable, key ${q.operation}/${q.key.slice(0, 8)}… holds on this instance only`);
      return { attempted: [], durable: false };
    }
    if ("done" in c) {
      if (c.done.request !== undefined && c.done.request !== q.fingerprint) throw keyReused(q.operation);
      return { replayed: c.done };
    }
    if ("attempted" in c) return { attempted: c.attempted, durable: true };
    await new Promise((r) => setTimeout(r, POLL_MS));
  }
}

async function runOwned(
  opts: TStoreOptions,
  q: TKeyed,
  exec: (lease: TIdempotencyLease) => Promise<TRunResult>,
): Promise<{ answer: TStoredAnswer; replayed: boolean }> {
  const claimed = await claimOrWait(opts, q);
  if ("replayed" in claimed) return { answer: claimed.replayed, replayed: true };
  const { pool } = opts;
  const { durable } = claimed;
  const params = [q.operation, q.key, opts.ownerId];
  let result: TRunResult;
  try {
    result = await exec(leaseOf(opts, params, claimed.attempted, durable));
  } catch (err) {
    if (durable)
      await pool.query(`update gateway_idempotency set state = 'open' where operation_key = $1 and key = $2 and owner_id = $3`, params).catch(() => {});
    throw err;
  }
  if (durable) {
    const write = result.definitive
      ? pool.query({
          name: "idempotency_done",
          text: `update gateway_idempotency set state = 'done', http_status = $4, response = $5 where operation_key = $1 and key = $2 and owner_id = $3`,
          values: [...params, result.answer.status, JSON.stringify({ ...result.answer, request: q.fingerprint } satisfies TStoredRow)],
        })
      : pool.query(`update gateway_idempotency set state = 'open' where operation_key = $1 and key = $2 and owner_id = $3`, params);
    await write.catch((err: unknown) => opts.log(`gateway idempotency: could not store the answer for ${q.operation}: ${(err as Error).message}`));
  }
  return { answer: result.answer, replayed: false };
}

/** The lease handed to the executing caller; `params`: operation, key and owner, the row's identity. */
function leaseOf(opts: TStoreOptions, params: readonly string[], attempted: string[], durable: boolean): TIdempotencyLease {
  const { pool } = opts;
  return {
    attempted,
    markAttempt: async (provider) => {
      if (!durable) return;
      await pool
        .query({
          name: "idempotency_mark_attempt",
          text: `update gateway_idempotency set attempted = array_append(attempted, $4) where operation_key = $1 and key = $2 and owner_id = $3`,
          values: [...params, provider],
        })
        .catch((err: unknown) => opts.log(`gateway idempotency: could not mark ${provider}: ${(err as Error).message}`));
    },
    unmarkAttempt: async (provider) => {
      if (!durable) return;
      await pool
        .query(`update gateway_idempotency set attempted = array_remove(attempted, $4) where operation_key = $1 and key = $2 and owner_id = $3`, [
          ...params,
          provider,
        ])
        .catch(() => {});
    },
  };
}

export type IdempotencyStore = ReturnType<typeof createIdempotencyStore>;
