import { createHash } from "node:crypto";
import type pg from "pg";
import { addRollupDeltas, rollupDeltasOf, type TDecisionRow } from "../dataplane";

/**
 * Cross-instance idempotency when decisions are not in Postgres, without a Postgres row or lock
 * per decision: a claim log. Every batch's claims (key hash, decision id, time: 40 bytes each)
 * are one row of `decision_claim_batch`, written under one transaction-scoped advisory lock
 * that every instance takes per batch; each instance keeps the window's claims of all
 * instances in memory and, under the lock, first reads the rows committed since it last looked.
 * The lock makes "read what others claimed, decide winners, append" one serial step across
 * instances, and the ids of the rows commit in order (each is taken and committed under it), so
 * reading `id > last seen` misses nothing. Postgres does per batch what it did per decision.
 */
export const CLAIM_LOG_TABLE_DDL = `create table if not exists decision_claim_batch (
  id bigserial primary key,
  created_at timestamptz not null default now(),
  claims bytea not null
);
do $$ begin
  -- Hashes and random ids do not compress: stored out of line without trying. Altered once, not at every start (it waits on running claim steps).
  if (select attstorage from pg_attribute where attrelid = 'decision_claim_batch'::regclass and attname = 'claims') <> 'e' then
    alter table decision_claim_batch alter column claims set storage external;
  end if;
end $$`;

/** One advisory lock for every instance's claim step (hashtext of a name, as lib/audit's). */
const LOCK = "select pg_advisory_xact_lock(hashtext('switchyard:decision_claims'))";
const CLAIM_BYTES = 40;

/** Rows logged before keys were recorded have no principal; they are keyed as '' (null matches only null, as in Postgres mode). */
const keyOf = (r: TDecisionRow) => `${r.operation}\u0000${r.requestId}\u0000${r.apiKeyId ?? ""}`;

/** The first 128 bits of the key's SHA-256. */
function keyHash(key: string): Buffer {
  return createHash("sha256").update(key).digest().subarray(0, 16);
}

const uuidBytes = (id: string) => Buffer.from(id.replace(/-/g, ""), "hex");
function uuidText(b: Buffer, at: number): string {
  const h = b.toString("hex", at, at + 16);
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-${h.slice(12, 16)}-${h.slice(16, 20)}-${h.slice(20, 32)}`;
}

/**
 * A claim as this instance holds it in memory: the key hash as a 16-character one-byte string,
 * and its decision id and time as a 24-character one: a fraction of the memory text ids and
 * objects take (figures in lib/decision-store/README.md).
 */
const heldKey = (b: Buffer, at: number) => b.toString("latin1", at, at + 16);
const heldValue = (b: Buffer, at: number) => b.toString("latin1", at + 16, at + CLAIM_BYTES);
const heldAt = (v: string) => Buffer.from(v, "latin1").readDoubleLE(16);
const heldId = (v: string) => uuidText(Buffer.from(v, "latin1"), 0);

/** The claims of one batch as the row's bytes: per claim the key hash, the decision id and its time in ms. */
export function encodeClaims(claims: ReadonlyArray<{ key: Buffer; id: string; at: number }>): Buffer {
  const out = Buffer.alloc(claims.length * CLAIM_BYTES);
  claims.forEach((c, i) => {
    const o = i * CLAIM_BYTES;
    c.key.copy(out, o);
    uuidBytes(c.id).copy(out, o + 16);
    out.writeDoubleLE(c.at, o + 32);
  });
  return out;
}

export function decodeClaims(b: Buffer): Array<{ key: string; id: string; at: number }> {
  const out: Array<{ key: string; id: string; at: number }> = [];
  for (let o = 0; o + CLAIM_BYTES <= b.length; o += CLAIM_BYTES) {
    out.push({ key: b.toString("base64", o, o + 16), id: uuidText(b, o + 16), at: b.readDoubleLE(o + 32) });
  }
  return out;
}

export type TClaimLogOptions = { pool: pg.Pool; windowMs: number; now?: () => number };

/**
 * The claim log of one instance. `claim` decides a batch's winners and adds their rollup cells in
 * the same transaction (counted once, whoever replays what); it returns, for each row that lost,
 * the id of the decision holding its key (another instance's, an earlier batch's, or an earlier
 * row of this batch).
 */
export function createClaimLog(opts: TClaimLogOptions) {
  const now = opts.now ?? Date.now;
  // Insertion order is commit order, so roughly time order: expired claims are dropped from the front.
  const held = new Map<string, string>();
  let lastSeen = "0";
  let loaded = false;
  // One claim step of this instance at a time: its batches wait here rather than each holding a connection on the lock.
  let tail: Promise<unknown> = Promise.resolve();
  let prunedAt = now();

  function learn(rows: ReadonlyArray<{ id: string; claims: Buffer }>): void {
    for (const r of rows) {
      for (let o = 0; o + CLAIM_BYTES <= r.claims.length; o += CLAIM_BYTES) {
        const k = heldKey(r.claims, o);
        held.delete(k);
        held.set(k, heldValue(r.claims, o));
      }
      if (BigInt(r.id) > BigInt(lastSeen)) lastSeen = r.id;
    }
  }

  function evict(): void {
    // A minute past the window: instances' clocks differ a little.
    const horizon = now() - opts.windowMs - 60_000;
    for (const [k, v] of held) {
      if (heldAt(v) >= horizon) break;
      held.delete(k);
    }
  }

  async function readSince(client: pg.ClientBase): Promise<void> {
    const { rows } = await client.query<{ id: string; claims: Buffer }>({
      name: "decision_claims_since",
      text: "select id::text as id, claims from decision_claim_batch where id > $1 order by id",
      values: [lastSeen],
    });
    learn(rows);
  }

  /** The window's claims of every instance, read once without the lock; later steps read only what is new. */
  async function load(): Promise<void> {
    const { rows } = await opts.pool.query<{ id: string; claims: Buffer }>(
      "select id::text as id, claims from decision_claim_batch where created_at >= $1 order by id",
      [new Date(now() - opts.windowMs - 60_000).toISOString()],
    );
    learn(rows);
    loaded = true;
  }

  async function step(rows: readonly TDecisionRow[]): Promise<Map<string, string>> {
    if (!loaded) await load();
    const client = await opts.pool.connect();
    const losers = new Map<string, string>();
    const mine: Array<{ key: Buffer; id: string; at: number }> = [];
    try {
      await client.query("begin");
      await client.query(LOCK);
      await readSince(client);
      const inBatch = new Map<string, string>();
      for (const r of rows) {
        const key = keyHash(keyOf(r));
        const k = heldKey(key, 0);
        const first = inBatch.get(k);
        if (first !== undefined) {
          losers.set(r.id, first);
          continue;
        }
        const h = held.get(k);
        // A claim older than the window no longer holds its key (as Postgres mode's window).
        if (h !== undefined && heldAt(h) >= r.createdAt - opts.windowMs) {
          losers.set(r.id, heldId(h));
          continue;
        }
        inBatch.set(k, r.id);
        mine.push({ key, id: r.id, at: r.createdAt });
      }
      let id: string | null = null;
      const encoded = encodeClaims(mine);
      if (mine.length > 0) {
        const ins = await client.query<{ id: string }>({
          name: "decision_claims_append",
          text: "insert into decision_claim_batch (claims) values ($1) returning id::text as id",
          values: [encoded],
        });
        id = ins.rows[0]!.id;
      }
      const won = rows.filter((r) => !losers.has(r.id));
      await addRollupDeltas(client, rollupDeltasOf(won));
      await client.query("commit");
      // Everything up to our own row was read under the lock, so ours is the newest this instance needs to know of.
      if (id !== null) learn([{ id, claims: encoded }]);
    } catch (err) {
      await client.query("rollback").catch(() => {});
      client.release(true);
      throw err;
    }
    client.release();
    evict();
    // The rows of claims past the window are read by nobody: delete them every minute rather than let an hour of batches pile up.
    if (now() - prunedAt > 60_000) {
      prunedAt = now();
      void pruneClaims(opts.pool, opts.windowMs, prunedAt).catch(() => {});
    }
    return losers;
  }

  return {
    claim(rows: readonly TDecisionRow[]): Promise<Map<string, string>> {
      const run = tail.then(() => step(rows));
      tail = run.catch(() => {});
      return run;
    },
    /** Claims this instance knows of (for tests and the bench). */
    get size(): number {
      return held.size;
    },
  };
}

export type ClaimLog = ReturnType<typeof createClaimLog>;

/** Deletes claim rows older than the window (maintenance); an instance starting later reads only the window. */
export async function pruneClaims(pool: pg.Pool, windowMs: number, now: number): Promise<number> {
  const r = await pool.query(`delete from decision_claim_batch where created_at < $1`, [new Date(now - windowMs - 60_000).toISOString()]);
  return r.rowCount ?? 0;
}
