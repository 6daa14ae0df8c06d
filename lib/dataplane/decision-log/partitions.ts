import type pg from "pg";

const DAY_MS = 86_400_000;
const PARTITION_RE = /^decision_p(\d{4})(\d{2})(\d{2})$/;
/** Serialises maintenance across instances: concurrent CREATE ... PARTITION OF can collide. */
const MAINTENANCE_LOCK = 0x5359_4431; // "SYD1"

export type TPartitionOptions = {
  now: number;
  /** Partitions exist from `from` (default: yesterday, for clock skew) through today + daysAhead (UTC days). */
  daysAhead: number;
  /** Partitions whose whole day is older than this many days are dropped; 0 keeps everything. */
  retentionDays: number;
  /** Also cover this older instant, e.g. the oldest spooled record being replayed. */
  from?: number;
};

export type TPartitionResult = { created: string[]; dropped: string[] };

function dayStart(ms: number): number {
  return Math.floor(ms / DAY_MS) * DAY_MS;
}

export function partitionName(dayMs: number): string {
  return `decision_p${new Date(dayMs).toISOString().slice(0, 10).replaceAll("-", "")}`;
}

/**
 * Daily partitions of the decision log (UTC days): creates the ones from yesterday through
 * today + daysAhead, and drops those past retention. Dropping a partition is how retention is
 * cheap: no DELETE, no vacuum. Run at boot, periodically, and before replaying old spooled rows.
 */
export async function maintainPartitions(pool: pg.Pool, opts: TPartitionOptions): Promise<TPartitionResult> {
  const today = dayStart(opts.now);
  const first = Math.min(today - DAY_MS, opts.from !== undefined ? dayStart(opts.from) : Infinity);
  const cutoff = opts.retentionDays > 0 ? today - opts.retentionDays * DAY_MS : -Infinity;
  const client = await pool.connect();
  try {
    await client.query("begin");
    await client.query("select pg_advisory_xact_lock($1)", [MAINTENANCE_LOCK]);
    const { rows } = await client.query<{ name: string }>(
      `select c.relname as name from pg_inherits i
         join pg_class c on c.oid = i.inhrelid
         join pg_class p on p.oid = i.inhparent
        where p.relname = 'decision' and p.relnamespace = current_schema()::regnamespace`,
    );
    const existing = new Set(rows.map((r) => r.name));
    const created: string[] = [];
    const dropped: string[] = [];
    for (const name of existing) {
      const m = PARTITION_RE.exec(name);
      if (!m) continue;
      const day = Date.UTC(Number(m[1]), Number(m[2]) - 1, Number(m[3]));
      // A spooled record older than retention still gets its partition back for replay.
      if (day + DAY_MS <= cutoff && day < first) {
        await client.query(`drop table ${quote(name)}`);
        dropped.push(name);
      }
    }
    for (let day = first; day <= today + opts.daysAhead * DAY_MS; day += DAY_MS) {
      const name = partitionName(day);
      if (existing.has(name)) continue;
      await client.query(
        `create table ${quote(name)} partition of "decision" for values from ('${new Date(day).toISOString()}') to ('${new Date(day + DAY_MS).toISOString()}')`,
      );
      created.push(name);
    }
    await client.query("commit");
    return { created, dropped };
  } catch (err) {
    await client.query("rollback").catch(() => {});
    throw err;
  } finally {
    client.release();
  }
}

function quote(name: string): string {
  return `"${name.replaceAll('"', '""')}"`;
}
