import type pg from "pg";
import type { TDecisionRow, TDecisionSource } from "./rows";

/**
 * One cell of decision_rollup and what to add to it. Absent dimensions are '' (no provider
 * selected, no policy version), as the table's key has no NULLs.
 */
export type TRollupDelta = {
  /** Epoch ms of the minute's start. */
  minute: number;
  operation: string;
  region: string;
  selectedProvider: string;
  reasonCode: string;
  policyVersion: string;
  shadow: "agree" | "disagree" | "none";
  stale: boolean;
  degraded: boolean;
  source: TDecisionSource;
  /** The shadow policy's pick, '' when none. */
  shadowPick: string;
  count: number;
};

const MINUTE_MS = 60_000;

const keyOf = (d: Omit<TRollupDelta, "count">) =>
  [d.operation, d.region, d.minute, d.selectedProvider, d.reasonCode, d.policyVersion, d.shadow, d.stale, d.degraded, d.source, d.shadowPick].join("\u001f");

/**
 * The rollup cells of decision rows, summed: what the Postgres insert adds in SQL for the rows it
 * inserted (decision_log_insert_rolled), for a store that counts in its own way. Rows whose count
 * a client reports itself (`counted: false`) are left out.
 */
export function rollupDeltasOf(rows: readonly TDecisionRow[]): TRollupDelta[] {
  const cells = new Map<string, TRollupDelta>();
  for (const r of rows) {
    if (r.counted === false) continue;
    const cell = {
      minute: Math.floor(r.createdAt / MINUTE_MS) * MINUTE_MS,
      operation: r.operation,
      region: r.region,
      selectedProvider: r.selectedProvider ?? "",
      reasonCode: r.reasonCode,
      policyVersion: r.policyVersion ?? "",
      shadow: r.shadowAgrees === null ? "none" : r.shadowAgrees ? "agree" : "disagree",
      stale: r.stale,
      degraded: r.degraded,
      source: r.source ?? "server",
      shadowPick: r.shadowPick ?? "",
    } as const;
    const key = keyOf(cell);
    const found = cells.get(key);
    if (found) found.count++;
    else cells.set(key, { ...cell, count: 1 });
  }
  return [...cells.values()];
}

/** decision_rollup's key, in the order its cells are upserted (two writers then lock them in the same order). */
const KEY = "operation, region, minute, selected_provider, reason_code, policy_version, shadow, stale, degraded, source, shadow_pick";

/**
 * Adds deltas to decision_rollup, on the caller's connection and so in its transaction. Equal
 * cells are summed first (an upsert cannot touch one row twice) and written in key order, as the
 * decision insert writes its own, so concurrent writers wait rather than deadlock.
 */
export async function addRollupDeltas(client: pg.ClientBase, deltas: readonly TRollupDelta[]): Promise<void> {
  if (deltas.length === 0) return;
  const col = <K extends keyof TRollupDelta>(k: K) => deltas.map((d) => d[k]);
  await client.query(
    `insert into decision_rollup (${KEY}, count)
     select operation, region, to_timestamp(minute / 1000.0), selected_provider, reason_code, policy_version, shadow, stale, degraded, source, shadow_pick, sum(n)
       from unnest($1::text[], $2::text[], $3::int8[], $4::text[], $5::text[], $6::text[], $7::text[], $8::bool[], $9::bool[], $10::text[], $11::text[], $12::int8[])
         as t(operation, region, minute, selected_provider, reason_code, policy_version, shadow, stale, degraded, source, shadow_pick, n)
      group by 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11
      order by 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11
     on conflict (${KEY}) do update set count = decision_rollup.count + excluded.count`,
    [
      col("operation"),
      col("region"),
      col("minute"),
      col("selectedProvider"),
      col("reasonCode"),
      col("policyVersion"),
      col("shadow"),
      col("stale"),
      col("degraded"),
      col("source"),
      col("shadowPick"),
      col("count"),
    ],
  );
}
