import type pg from "pg";
import { uuidV7Time } from "../decision-id";

/**
 * The spool backlog: decisions an instance holds in its local spool (written there while Postgres
 * was unreachable) and has not yet written to the table. The instance announces the range in
 * `decision_spool_backlog` before it replays and withdraws it when the spool is empty, so another
 * instance receiving an outcome for one of those decisions spools the outcome to wait for it
 * (the outcome spool's grace period) instead of refusing it as unknown.
 */

/** createdAt bounds of the spooled decisions; null bounds: unknown (a spool left by an earlier process). */
export type TSpoolRange = { oldest: number | null; newest: number | null };

export type TBacklogRow = TSpoolRange & { instanceId: string; updatedAt: number };

/** Announcements older than this are ignored: their instance died before withdrawing them. */
export const BACKLOG_MAX_AGE_MS = 15 * 60_000;

/** Instance clocks differ a little: a decision id's time is compared with this much slack. */
const SKEW_MS = 5_000;

export async function announceBacklog(pool: pg.Pool, instanceId: string, range: TSpoolRange): Promise<void> {
  await pool.query(
    `insert into decision_spool_backlog (instance_id, oldest_at, newest_at, updated_at) values ($1, $2, $3, now())
     on conflict (instance_id) do update set oldest_at = excluded.oldest_at, newest_at = excluded.newest_at, updated_at = now()`,
    [instanceId, range.oldest === null ? null : new Date(range.oldest), range.newest === null ? null : new Date(range.newest)],
  );
}

export async function withdrawBacklog(pool: pg.Pool, instanceId: string): Promise<void> {
  await pool.query(`delete from decision_spool_backlog where instance_id = $1`, [instanceId]);
}

export async function readBacklog(pool: pg.Pool, maxAgeMs = BACKLOG_MAX_AGE_MS): Promise<TBacklogRow[]> {
  const { rows } = await pool.query<{ instance_id: string; oldest_at: Date | null; newest_at: Date | null; updated_at: Date }>(
    `select instance_id, oldest_at, newest_at, updated_at from decision_spool_backlog where updated_at > now() - make_interval(secs => $1)`,
    [maxAgeMs / 1000],
  );
  return rows.map((r) => ({
    instanceId: r.instance_id,
    oldest: r.oldest_at?.getTime() ?? null,
    newest: r.newest_at?.getTime() ?? null,
    updatedAt: r.updated_at.getTime(),
  }));
}

/**
 * Whether a decision id not found in the table may still be in a spool: its UUIDv7 time falls in
 * an announced range (or an announcement with unknown bounds, for ids younger than the maximum
 * age), or in `outage`, a period this instance itself could not reach Postgres (another instance
 * may have spooled decisions then and not have announced them yet).
 */
export function mayBeSpooled(id: string, backlog: readonly TSpoolRange[], outage: TSpoolRange | null, now: number): boolean {
  const t = uuidV7Time(id);
  if (t === null || t > now + SKEW_MS || now - t > BACKLOG_MAX_AGE_MS) return false;
  const within = (r: TSpoolRange) => (r.oldest === null || t >= r.oldest - SKEW_MS) && (r.newest === null || t <= r.newest + SKEW_MS);
  return backlog.some(within) || (outage !== null && within(outage));
}
