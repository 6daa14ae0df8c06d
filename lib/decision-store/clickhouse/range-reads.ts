import type { ClickHouseClient } from "@clickhouse/client";
import type { TDecisionCount, TDecisionCountQuery, TRawRange } from "../../dataplane";
import { readNewestFirst } from "./windows";

/** A shadow disagreement as the shadow view lists it, before its outcomes and breakers (read from Postgres). */
export type TShadowDisagreementRow = {
  id: string;
  at: number;
  region: string;
  policy_version: string | null;
  shadow_version: string | null;
  selected_provider: string | null;
  shadow_pick: string | null;
  reason_code: string;
};

export type TShadowDisagreementGroupRow = { region: string; actual: string | null; shadow: string | null; count: number; lastAt: number };

/** Each count dimension as a column expression of the decision table, named as Postgres's raw counts name them (counts.ts). */
const DIMENSIONS: Readonly<Record<string, string>> = {
  region: "region",
  provider: "selected_provider",
  reasonCode: "reason_code",
  policyVersion: "policy_version",
  shadow: "multiIf(shadow_agrees IS NULL, 'none', shadow_agrees, 'agree', 'disagree')",
  stale: "stale",
  degraded: "degraded",
  source: "source",
  shadowPick: "shadow_pick",
};

const ms = (t: number) => new Date(t);

/** The most ranges one disagreement read takes: two partial minutes and one last minute per group. */
const MAX_RANGES = 1_000;

/** A query's rows as JSON objects, with server-side parameters. */
export async function queryRows<T>(client: ClickHouseClient, query: string, params: Record<string, unknown>): Promise<T[]> {
  const rs = await client.query({ query, query_params: params, format: "JSONEachRow" });
  return rs.json<T>();
}

/** The range views' reads of decision rows: counts (the raw edges of a rollup count, sub-minute charts) and shadow disagreements. */
export function createClickHouseRangeReads(client: ClickHouseClient) {
  const rows = <T>(query: string, params: Record<string, unknown>) => queryRows<T>(client, query, params);
  return {
    /**
     * Decision rows over `ranges`, per bucket of `q.bucketMs` from `origin` (the epoch unless
     * given) and per dimension: the raw part of a count (lib/dataplane counts.ts), and the
     * sub-minute charts' counts.
     */
    async count(q: TDecisionCountQuery, ranges: readonly TRawRange[], origin = 0): Promise<TDecisionCount[]> {
      const params: Record<string, unknown> = { operation: q.operation, bucket: q.bucketMs, origin };
      const within = ranges.map((r, i) => {
        params[`f${i}`] = ms(r.from);
        params[`t${i}`] = ms(r.to);
        return `(at ${r.fromIncluded ? ">=" : ">"} {f${i}:DateTime64(3)} AND at ${r.toIncluded ? "<=" : "<"} {t${i}:DateTime64(3)})`;
      });
      const where = [`operation = {operation:String}`, `(${within.join(" OR ")})`];
      if (q.region !== undefined) {
        where.push("region = {region:String}");
        params.region = q.region;
      }
      if (q.shadowed) where.push("shadow_agrees IS NOT NULL");
      const dims = q.by.map((d, i) => `, ${DIMENSIONS[d]} AS d${i}`).join("");
      const groupBy = q.by.map((_, i) => `, d${i}`).join("");
      const raw = await rows<Record<string, unknown>>(
        `SELECT toString({origin:Int64} + intDiv(toUnixTimestamp64Milli(at) - {origin:Int64}, {bucket:Int64}) * {bucket:Int64}) AS t${dims}, count() AS n
           FROM decision FINAL WHERE ${where.join(" AND ")} GROUP BY t${groupBy} ORDER BY t`,
        params,
      );
      return raw.map((r) => {
        const out: TDecisionCount = { t: Number(r.t), n: Number(r.n) };
        q.by.forEach((d, i) => {
          (out as Record<string, unknown>)[d] = r[`d${i}`];
        });
        return out;
      });
    },

    /**
     * The latest shadow disagreements of an operation in [from, to], newest first (the shadow
     * view's list), read in windows from `to` (windows.ts) until `limit` are found.
     */
    async disagreements(operation: string, from: number, to: number, limit: number): Promise<TShadowDisagreementRow[]> {
      return readNewestFirst(from, to, limit, async (start, below, remaining) => {
        const raw = await rows<Omit<TShadowDisagreementRow, "at"> & { at_ms: string }>(
          `SELECT id, toString(toUnixTimestamp64Milli(at)) AS at_ms, region, policy_version, shadow_version, selected_provider, shadow_pick, reason_code
             FROM decision FINAL
            WHERE operation = {operation:String} AND at >= {from:DateTime64(3)} AND at <= {to:DateTime64(3)} AND shadow_agrees = false
              ${below === undefined ? "" : "AND at < {below:DateTime64(3)}"}
            ORDER BY at DESC, toString(id) DESC LIMIT {limit:UInt32}`,
          { operation, from: ms(start), to: ms(to), limit: remaining, ...(below === undefined ? {} : { below: ms(below) }) },
        );
        return raw.map(({ at_ms, ...r }) => ({ ...r, at: Number(at_ms) }));
      });
    },

    /**
     * Disagreements of an operation by region and provider pair: each group's rows in `counted`
     * and its last time in `counted` and `latest` together (lib/dataplane's
     * TRawDisagreementGroups: the partial minutes at a range's ends, and the groups' last minutes
     * found through the rollups), so the read covers a few minutes of the key's `at` range
     * whatever the range. FINAL keeps a row written twice from counting twice; over so few
     * minutes it merges a few granules.
     */
    async disagreementGroups(operation: string, counted: readonly TRawRange[], latest: readonly TRawRange[]): Promise<TShadowDisagreementGroupRow[]> {
      if (counted.length + latest.length === 0) return [];
      if (counted.length + latest.length > MAX_RANGES) throw new RangeError(`at most ${MAX_RANGES} ranges, got ${counted.length + latest.length}`);
      const params: Record<string, unknown> = { operation };
      const within = (ranges: readonly TRawRange[], prefix: string) =>
        ranges.map((r, i) => {
          params[`${prefix}f${i}`] = ms(r.from);
          params[`${prefix}t${i}`] = ms(r.to);
          return `(at ${r.fromIncluded ? ">=" : ">"} {${prefix}f${i}:DateTime64(3)} AND at ${r.toIncluded ? "<=" : "<"} {${prefix}t${i}:DateTime64(3)})`;
        });
      const inCounted = within(counted, "c");
      const all = [...inCounted, ...within(latest, "l")];
      const raw = await rows<{ region: string; actual: string | null; shadow: string | null; n: string; last_ms: string }>(
        `SELECT region, selected_provider AS actual, shadow_pick AS shadow, ${inCounted.length === 0 ? "0" : `countIf(${inCounted.join(" OR ")})`} AS n,
                toString(toUnixTimestamp64Milli(max(at))) AS last_ms
           FROM decision FINAL
          WHERE operation = {operation:String} AND (${all.join(" OR ")}) AND shadow_agrees = false
          GROUP BY region, actual, shadow`,
        params,
      );
      return raw.map((r) => ({ region: r.region, actual: r.actual, shadow: r.shadow, count: Number(r.n), lastAt: Number(r.last_ms) }));
    },
  };
}
