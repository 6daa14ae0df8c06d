import type pg from "pg";

const DAY_MS = 86_400_000;
const PARTITION_RE = /^decision_p(\d{4})(\d{2})(\d{2})$/;
const LIST_PARTITION_RE = /^decision_candidates_p(\d{4})(\d{2})(\d{2})$/;
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

/** The start of the UTC day a time falls on (epoch ms). */
export function dayStart(ms: number): number {
  return Math.floor(ms / DAY_MS) * DAY_MS;
}

export function partitionName(dayMs: number): string {
  return `decision_p${dayKey(dayMs)}`;
}

/** The partition of decision_candidates (the candidate lists, stored once per day) for that day. */
export function listPartitionName(dayMs: number): string {
  return `decision_candidates_p${dayKey(dayMs)}`;
}

/** A UTC day as YYYY-MM-DD: decision_candidates' partition key. */
export const isoDay = (dayMs: number) => new Date(dayMs).toISOString().slice(0, 10);
const dayKey = (dayMs: number) => isoDay(dayMs).replaceAll("-", "");

/**
 * The two day-partitioned tables: decision (by created_at) and decision_candidates (by day), which
 * decision rows of the same day refer to; they are created and dropped together.
 */
const PARENTS = [
  { table: "decision", re: PARTITION_RE, name: partitionName, bounds: (day: number) => [new Date(day).toISOString(), new Date(day + DAY_MS).toISOString()] },
  { table: "decision_candidates", re: LIST_PARTITION_RE, name: listPartitionName, bounds: (day: number) => [isoDay(day), isoDay(day + DAY_MS)] },
] as const;

/**
 * Daily partitions of the decision log (UTC days): creates the ones from yesterday through
 * today + daysAhead, and drops those past retention. Dropping a partition is how retention is
 * cheap: no DELETE, no vacuum. Run at boot, periodically, and before replaying old spooled rows.
 * `created` and `dropped` name decision's partitions; decision_candidates' follow them.
 */
export async function maintainPartitions(pool: pg.Pool, opts: TPartitionOptions): Promise<TPartitionResult> {
  const today = dayStart(opts.now);
  const first = Math.min(today - DAY_MS, opts.from !== undefined ? dayStart(opts.from) : Infinity);
  const cutoff = opts.retentionDays > 0 ? today - opts.retentionDays * DAY_MS : -Infinity;
  const client = await pool.connect();
  try {
    await client.query("begin");
    await client.query("select pg_advisory_xact_lock($1)", [MAINTENANCE_LOCK]);
    const created: string[] = [];
    const dropped: string[] = [];
    for (const parent of PARENTS) {
      const { rows } = await client.query<{ name: string }>(
        `select c.relname as name from pg_inherits i
           join pg_class c on c.oid = i.inhrelid
           join pg_class p on p.oid = i.inhparent
          where p.relname = $1 and p.relnamespace = current_schema()::regnamespace`,
        [parent.table],
      );
      const existing = new Set(rows.map((r) => r.name));
      const main = parent.table === "decision";
      for (const name of existing) {
        const m = parent.re.exec(name);
        if (!m) continue;
        const day = Date.UTC(Number(m[1]), Number(m[2]) - 1, Number(m[3]));
        // A spooled record older than retention still gets its partition back for replay.
        if (day + DAY_MS <= cutoff && day < first) {
          await client.query(`drop table ${quote(name)}`);
          if (main) dropped.push(name);
        }
      }
      for (let day = first; day <= today + opts.daysAhead * DAY_MS; day += DAY_MS) {
        const name = parent.name(day);
        if (existing.has(name)) continue;
        const [from, to] = parent.bounds(day);
        await client.query(`create table ${quote(name)} partition of ${quote(parent.table)} for values from ('${from}') to ('${to}')`);
        if (main) created.push(name);
      }
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
