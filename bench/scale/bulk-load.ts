import pg from "pg";
import { partitionName } from "../../lib/dataplane/decision-log/partitions";

const DAY_MS = 86_400_000;

/**
 * Bulk-load mode for the scale seed: building an index once over sorted rows costs a fraction of
 * maintaining it row by row, so for the load the window's daily partitions are detached from
 * `decision` and stripped of their indexes and keys, and the other seeded tables lose their
 * secondary indexes (primary keys stay). finish() puts back exactly what was there: ATTACH
 * PARTITION rebuilds every index and key the parent declares, and the saved definitions of the
 * other tables' indexes are executed again. Nothing is hard-coded, so index changes in the schema
 * carry through. The tables must be empty at the start (the seed refuses or truncates).
 */
export type TBulkLoad = {
  /** The partition table holding rows of this instant. */
  partitionFor(at: number): string;
  finish(log: (line: string) => void): Promise<void>;
};

type TSavedIndex = { table: string; name: string; def: string };

const q = (name: string) => pg.escapeIdentifier(name);

export async function beginBulkLoad(pool: pg.Pool, opts: { from: number; to: number; tables: readonly string[] }): Promise<TBulkLoad> {
  const days: number[] = [];
  for (let d = Math.floor(opts.from / DAY_MS) * DAY_MS; d < opts.to; d += DAY_MS) days.push(d);
  const saved: TSavedIndex[] = [];
  const client = await pool.connect();
  try {
    await client.query("begin");
    for (const day of days) {
      const name = partitionName(day);
      await client.query(`alter table decision detach partition ${q(name)}`);
      const { rows: cons } = await client.query<{ conname: string }>(
        `select conname from pg_constraint where conrelid = $1::regclass and contype in ('p', 'u')`,
        [name],
      );
      for (const c of cons) await client.query(`alter table ${q(name)} drop constraint ${q(c.conname)}`);
      const { rows: idx } = await client.query<{ name: string }>(`select indexrelid::regclass::text as name from pg_index where indrelid = $1::regclass`, [
        name,
      ]);
      for (const i of idx) await client.query(`drop index ${i.name}`);
    }
    for (const table of opts.tables) {
      // Secondary indexes only: the primary key stays (constraint indexes are not in this list).
      const { rows } = await client.query<{ name: string; def: string }>(
        `select i.indexrelid::regclass::text as name, pg_get_indexdef(i.indexrelid) as def
           from pg_index i where i.indrelid = $1::regclass
            and not exists (select 1 from pg_constraint c where c.conindid = i.indexrelid)`,
        [table],
      );
      for (const r of rows) {
        saved.push({ table, name: r.name, def: r.def });
        await client.query(`drop index ${r.name}`);
      }
    }
    await client.query("commit");
  } catch (err) {
    await client.query("rollback").catch(() => {});
    throw err;
  } finally {
    client.release();
  }
  return {
    partitionFor(at: number): string {
      return partitionName(Math.floor(at / DAY_MS) * DAY_MS);
    },
    async finish(log) {
      for (const day of days) {
        const name = partitionName(day);
        const started = Date.now();
        await pool.query(
          `alter table decision attach partition ${q(name)} for values from ('${new Date(day).toISOString()}') to ('${new Date(day + DAY_MS).toISOString()}')`,
        );
        log(`attached ${name} and built its indexes in ${((Date.now() - started) / 1000).toFixed(1)} s`);
      }
      // Two at a time: each build also uses the parallel maintenance workers.
      const queue = [...saved];
      const worker = async () => {
        for (let s = queue.shift(); s; s = queue.shift()) {
          const started = Date.now();
          await pool.query(s.def);
          log(`rebuilt ${s.name} in ${((Date.now() - started) / 1000).toFixed(1)} s`);
        }
      };
      await Promise.all([worker(), worker()]);
    },
  };
}
