import type pg from "pg";

/**
 * Tables a request can write to. A rejected request must leave every one unchanged; tables
 * that do not exist yet in this schema (a feature still landing) are skipped.
 */
export const WATCHED_TABLES = [
  "decision",
  "provider_call_outcome",
  "business_outcome",
  "factor_list_version",
  "factor_list_review",
  "operation_policy",
  "override",
  "audit_entry",
  "api_key",
  "app_user",
  "session",
  "demo_fault",
  "gateway_operation",
  "gateway_idempotency",
] as const;

export type TRowCounts = Record<string, number>;
type TQueryable = Pick<pg.Pool, "query">;

/** One statement counting every watched table, so a check after each request stays cheap. */
export async function createRowCounter(db: TQueryable) {
  const existing = (
    await db.query<{ name: string }>(
      "select table_name as name from information_schema.tables where table_schema = current_schema() and table_name = any($1)",
      [[...WATCHED_TABLES]],
    )
  ).rows
    .map((r) => r.name)
    .sort();
  const sql = `select ${existing.map((t) => `(select count(*) from ${t})::int as "${t}"`).join(", ")}`;
  return {
    tables: existing,
    async count(): Promise<TRowCounts> {
      return (await db.query<TRowCounts>(sql)).rows[0]!;
    },
  };
}

export type RowCounter = Awaited<ReturnType<typeof createRowCounter>>;

/** Tables whose count changed, as "table +n". */
export function rowChanges(before: TRowCounts, after: TRowCounts): string[] {
  return Object.keys(after)
    .filter((t) => after[t] !== before[t])
    .map((t) => `${t} ${after[t]! - before[t]! >= 0 ? "+" : ""}${after[t]! - before[t]!}`);
}
