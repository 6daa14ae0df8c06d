import type pg from "pg";
import type { TDecisionLookup, TDecisionRef } from "./outcomes";

const UUID_RE = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** Decisions by id from the decision log; ids that are not UUIDs cannot exist and are not sent. */
export function createDecisionLookup(pool: pg.Pool): TDecisionLookup {
  return async (ids) => {
    const out = new Map<string, TDecisionRef>();
    const wanted = ids.filter((id) => UUID_RE.test(id));
    if (wanted.length === 0) return out;
    const { rows } = await pool.query<{ id: string; operation: string; region: string; selected_provider: string | null }>(
      "select id::text, operation, region, selected_provider from decision where id = any($1::uuid[])",
      [wanted],
    );
    const byLower = new Map(wanted.map((id) => [id.toLowerCase(), id]));
    for (const r of rows) {
      out.set(byLower.get(r.id) ?? r.id, { operation: r.operation, region: r.region, selected: r.selected_provider });
    }
    return out;
  };
}
