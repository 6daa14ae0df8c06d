import type { ClickHouseClient } from "@clickhouse/client";
import { uuidV7Time, type TStoredDecision } from "../../dataplane";
import { createClickHouseOutcomes, outcomeFilterSql, type TOutcomeFilter } from "./outcomes";
import { createClickHouseRangeReads, queryRows } from "./range-reads";
import { readNewestFirst } from "./windows";

/** Partition pruning for a lookup by UUIDv7: its embedded time ± this much clock skew (as in Postgres mode). */
const SKEW_MS = 60_000;

/** A decision row as the console and the lookups read it (the data plane's shape, store.ts). */
export type TClickHouseDecision = TStoredDecision;

type TRaw = {
  id: string;
  at_ms: string;
  operation: string;
  region: string;
  request_id: string;
  policy_version: string | null;
  selected_provider: string | null;
  reason_code: string;
  shadow_pick: string | null;
  shadow_agrees: boolean | null;
  score_margin: number | null;
  stale: boolean;
  metric_age_ms: string | number | null;
  fallback_action: string | null;
  degraded: boolean;
  durability: string;
  instance_id: string;
  api_key_id: string | null;
  offered_providers: string | null;
};

const COLUMNS = `id, toString(toUnixTimestamp64Milli(at)) AS at_ms, operation, region, request_id, policy_version, selected_provider,
  reason_code, shadow_pick, shadow_agrees, score_margin, stale, metric_age_ms, fallback_action, degraded, durability, instance_id, api_key_id, offered_providers`;

function toDecision(r: TRaw): TClickHouseDecision {
  return {
    id: r.id,
    at: Number(r.at_ms),
    operation: r.operation,
    region: r.region,
    requestId: r.request_id,
    policyVersion: r.policy_version,
    selected: r.selected_provider,
    reasonCode: r.reason_code,
    shadowPick: r.shadow_pick,
    shadowAgrees: r.shadow_agrees,
    scoreMargin: r.score_margin,
    stale: r.stale,
    metricAgeMs: r.metric_age_ms === null ? null : Number(r.metric_age_ms),
    fallbackAction: r.fallback_action,
    degraded: r.degraded,
    durability: r.durability,
    instanceId: r.instance_id,
    apiKeyId: r.api_key_id,
    offeredProviders: r.offered_providers,
  };
}

/** The console's decision-log filters, as list-decisions.ts reads them. */
export type TClickHouseListFilter = {
  from: number;
  to: number;
  operation?: string;
  region?: string;
  provider?: string;
  reason?: string;
  policy?: string;
  stale?: "true" | "false";
  /** Keyset cursor: rows strictly before (at, id). */
  after?: { at: number; id: string };
  /** Decisions by their business outcomes (the outcome table in the same ClickHouse). */
  outcome?: TOutcomeFilter;
};

const ms = (t: number) => new Date(t);

/**
 * Decision reads against ClickHouse; a row a replay wrote twice counts once (FINAL, or the
 * listing's own skip of a repeated id). `outcomes`: the decisions' outcomes, kept in the same ClickHouse.
 */
export function createClickHouseReads(client: ClickHouseClient) {
  const rows = <T>(query: string, params: Record<string, unknown>) => queryRows<T>(client, query, params);

  /** A `WHERE` on one id: its UUIDv7 time bounds the partitions and the key's time range. */
  function byId(id: string): { where: string; params: Record<string, unknown> } {
    const t = uuidV7Time(id);
    if (t === null) return { where: "id = {id:UUID}", params: { id } };
    return { where: "id = {id:UUID} AND at BETWEEN {lo:DateTime64(3)} AND {hi:DateTime64(3)}", params: { id, lo: ms(t - SKEW_MS), hi: ms(t + SKEW_MS) } };
  }

  /**
   * Rows of one filter, newest first, at most `cap`, each once; `below`: only rows before this time
   * (a later window of a page). Read without FINAL, which reads and merges the key of every row in
   * the range before a filter outside the key (stale, provider) can drop any: a rare filter over a
   * week paid for the whole week. A replayed copy is the same row with the same (at, id), so it
   * sorts next to the original and is skipped here; a read that lost rows to copies goes on after
   * its last row.
   */
  async function page(f: TClickHouseListFilter, cap: number, below?: number): Promise<TClickHouseDecision[]> {
    const out: TClickHouseDecision[] = [];
    let last: string | undefined;
    let after = f.after;
    for (;;) {
      const want = cap - out.length;
      const got = await pageWithCopies({ ...f, after }, want, below);
      for (const d of got) {
        if (d.id === last) continue;
        last = d.id;
        out.push(d);
      }
      if (got.length < want || out.length >= cap) return out;
      const end = got[got.length - 1]!;
      after = { at: end.at, id: end.id };
    }
  }

  /** page()'s read: the rows, a replayed copy included. */
  async function pageWithCopies(f: TClickHouseListFilter, cap: number, below?: number): Promise<TClickHouseDecision[]> {
    const where = ["at >= {from:DateTime64(3)}", "at <= {to:DateTime64(3)}"];
    const params: Record<string, unknown> = { from: ms(f.from), to: ms(f.to), limit: cap };
    const eq = (column: string, name: string, value: string | undefined) => {
      if (value === undefined) return;
      where.push(`${column} = {${name}:String}`);
      params[name] = value;
    };
    if (below !== undefined) {
      where.push("at < {below:DateTime64(3)}");
      params.below = ms(below);
    }
    eq("operation", "operation", f.operation);
    eq("region", "region", f.region);
    eq("selected_provider", "provider", f.provider);
    eq("reason_code", "reason", f.reason);
    eq("policy_version", "policy", f.policy);
    if (f.stale) where.push(f.stale === "true" ? "stale" : "NOT stale");
    if (f.after) {
      where.push("(at < {afterAt:DateTime64(3)} OR (at = {afterAt:DateTime64(3)} AND toString(id) < {afterId:String}))");
      params.afterAt = ms(f.after.at);
      params.afterId = f.after.id;
    }
    if (f.outcome) {
      const o = outcomeFilterSql(f.outcome);
      where.push(o.where);
      Object.assign(params, o.params);
    }
    // ClickHouse orders UUIDs by their two 64-bit halves, low half first; the tie-break compares
    // them as text, which for UUIDv7 (and the Postgres listing) is time order.
    const raw = await rows<TRaw>(
      `SELECT ${COLUMNS} FROM decision WHERE ${where.join(" AND ")} ORDER BY at DESC, toString(id) DESC LIMIT {limit:UInt32}`,
      params,
    );
    return raw.map(toDecision);
  }

  return {
    ...createClickHouseRangeReads(client),
    outcomes: createClickHouseOutcomes(client),

    /**
     * One page, newest first by (at, id), `limit + 1` rows so the caller knows whether there is a
     * next page. The range is read in windows from its newest end (or the cursor) until the page is
     * full (windows.ts). An outcome filter's set of decision ids is every business outcome reported since the
     * window's start (an outcome comes after its decision, as `reportedFrom` already assumes), so
     * it too holds a window's outcomes rather than the range's.
     */
    async list(f: TClickHouseListFilter, limit: number): Promise<TClickHouseDecision[]> {
      const skew = f.outcome ? f.from - f.outcome.reportedFrom : 0;
      const top = Math.min(f.to, f.after?.at ?? f.to);
      return readNewestFirst(f.from, top, limit + 1, (from, below, remaining) => {
        const outcome = f.outcome ? { outcome: { ...f.outcome, reportedFrom: from - skew } } : {};
        return page({ ...f, from, ...outcome }, remaining, below);
      });
    },

    /** One decision's row, or null; `near` (a time from the row the user clicked) is not needed: the id names its time. */
    async get(id: string): Promise<(TClickHouseDecision & { record: string }) | null> {
      const { where, params } = byId(id);
      const raw = await rows<TRaw & { record: string }>(`SELECT ${COLUMNS}, record FROM decision FINAL WHERE ${where} LIMIT 1`, params);
      return raw[0] ? { ...toDecision(raw[0]), record: raw[0].record } : null;
    },

    /** The decisions among `ids`, one query; the time bounds come from the ids' UUIDv7 times. */
    async find(ids: readonly string[]): Promise<TClickHouseDecision[]> {
      if (ids.length === 0) return [];
      const times = ids.map(uuidV7Time);
      const bounded = times.every((t) => t !== null);
      const lo = bounded ? Math.min(...(times as number[])) - SKEW_MS : 0;
      const hi = bounded ? Math.max(...(times as number[])) + SKEW_MS : 0;
      const raw = await rows<TRaw>(
        `SELECT ${COLUMNS} FROM decision FINAL WHERE id IN {ids:Array(UUID)}` + (bounded ? " AND at BETWEEN {lo:DateTime64(3)} AND {hi:DateTime64(3)}" : ""),
        { ids, lo: ms(lo), hi: ms(hi) },
      );
      return raw.map(toDecision);
    },
  };
}

export type ClickHouseReads = ReturnType<typeof createClickHouseReads>;
