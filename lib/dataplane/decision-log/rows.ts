import type pg from "pg";
import type { TDecisionRecord } from "../../../router-core/index";
import {
  boolParam,
  dateParam,
  float8Param,
  int4Param,
  int8Scalar,
  textParam,
  timestamptzParam,
  timestamptzScalar,
  uuidParam,
  type TBinaryParam,
} from "./columns";
import { callPrepared } from "./prepared-call";
import { dayStart, isoDay } from "./partitions";

/** One decision-log row, also the spool's line format (so replay needs no conversion). */
export type TDecisionRow = {
  id: string;
  /** Epoch ms; equals the record's `at`. */
  createdAt: number;
  operation: string;
  region: string;
  requestId: string;
  policyVersion: string | null;
  shadowVersion: string | null;
  selectedProvider: string | null;
  reasonCode: string;
  shadowPick: string | null;
  shadowAgrees: boolean | null;
  scoreMargin: number | null;
  stale: boolean;
  metricAgeMs: number | null;
  fallbackAction: string | null;
  degraded: boolean;
  /** The response body as sent, stored as json (the exact text). */
  body: string;
  durability: "sync" | "async";
  instanceId: string;
  /**
   * Who asked: the API key's id (the principal id: `env:SWITCHYARD_API_KEY`, `anonymous`), so a
   * decision can be traced to a key and its idempotency is the key's own. Absent in rows spooled
   * before it existed (replayed as null).
   */
  apiKeyId?: string | null;
  /**
   * The providers outcomes may be reported for, comma-separated: the selected one, then the
   * failover order the caller was given (decide's eligible candidates, a client's reported order).
   */
  offeredProviders?: string | null;
  /** Who made the decision: Switchyard (decide, execute), or a client (local, fail_static). Absent in older spooled rows: server. */
  source?: TDecisionSource;
  /**
   * Whether the insert adds the row to decision_rollup. False for a client's decision whose count
   * arrives in the client's count report (local-decisions/counts.ts), so it is not counted twice.
   */
  counted?: boolean;
};

export type TDecisionSource = "server" | "local" | "fail_static";

/**
 * The decision-log row for a router-core record: the columns the console filters on, taken from
 * the record, and `body`, the response text as sent (decide and execute add their own fields).
 */
export function decisionRowOf(
  record: TDecisionRecord,
  row: Pick<TDecisionRow, "id" | "degraded" | "body" | "durability" | "instanceId" | "apiKeyId">,
): TDecisionRow {
  // Spelled out field by field: a spread here cost about 2% of execute mode's CPU.
  return {
    id: row.id,
    createdAt: record.at,
    operation: record.operation,
    region: record.region,
    requestId: record.requestId,
    policyVersion: record.policyVersion,
    shadowVersion: record.shadow?.policyVersion ?? null,
    selectedProvider: record.selected,
    reasonCode: record.reasonCode,
    shadowPick: record.shadow?.selected ?? null,
    shadowAgrees: record.shadow ? record.shadow.agrees : null,
    scoreMargin: record.scoreMargin,
    stale: record.stale,
    metricAgeMs: record.metricAgeSeconds === null ? null : Math.round(record.metricAgeSeconds * 1000),
    fallbackAction: record.fallback?.action ?? null,
    degraded: row.degraded,
    body: row.body,
    durability: row.durability,
    instanceId: row.instanceId,
    apiKeyId: row.apiKeyId,
    offeredProviders: offeredProviders(record),
    source: "server",
  };
}

/** By candidate list, then selected provider: decisions on one routing state share the list (router-core). */
const offeredMemo = new WeakMap<readonly TDecisionRecord["candidates"][number][], Map<string, string>>();

/**
 * The selected provider, then the other eligible candidates in the record's order: what a caller
 * may fail over to and report outcomes for. Computed once per candidate list and selection.
 */
export function offeredProviders(record: Pick<TDecisionRecord, "candidates" | "selected" | "fallback">): string | null {
  // probe_only: nothing was eligible, the fallback names the one provider to probe.
  if (record.selected === null && record.fallback?.provider) return record.fallback.provider;
  let bySelected = offeredMemo.get(record.candidates);
  if (bySelected === undefined) {
    bySelected = new Map();
    offeredMemo.set(record.candidates, bySelected);
  }
  const key = record.selected ?? "";
  let text = bySelected.get(key);
  if (text === undefined) {
    const list = record.selected === null ? [] : [record.selected];
    for (const c of record.candidates) if (c.eligible && c.provider !== record.selected) list.push(c.provider);
    text = list.join(",");
    bySelected.set(key, text);
  }
  return text === "" ? null : text;
}
/** A candidate list's JSON text and its content id (see decide/body.ts). */
export type TCandidateList = { id: string; json: string };

/**
 * A record as the decision table stores it: `text` with `"candidates":null`, and the list stored
 * once per day in decision_candidates (decision_record_text() puts them back together).
 */
export type TStoredRecord = { text: string; list: TCandidateList };

/** A row to write and, when the caller split it, its stored form (otherwise `body` is stored whole). */
export type TDecisionWrite = { row: TDecisionRow; stored: TStoredRecord | null };

/**
 * The candidate lists this process has committed, as "day id" keys, most recent last. Bounded: a
 * list it has forgotten is sent again with its next decision, and the insert skips it (ON CONFLICT).
 */
export function createListMemory(max = 8192) {
  const keys = new Set<string>();
  return {
    has: (key: string) => keys.has(key),
    add(key: string): void {
      if (keys.has(key)) return;
      keys.add(key);
      if (keys.size > max) keys.delete(keys.values().next().value!);
    },
    get size(): number {
      return keys.size;
    },
  };
}

export type ListMemory = ReturnType<typeof createListMemory>;

/** A row that was already logged for the same (operation, requestId) within the idempotency window. */
export type TExistingDecision = { id: string; body: string };

export const IDEMPOTENCY_WINDOW_MS = 5 * 60_000;
const CLOCK_SKEW_MS = 60_000;

const INT4_MAX = 2 ** 31 - 1;

/** What a batch sends: its rows, each row's record text as stored, and each row's candidate list id. */
type TBatch = { rows: readonly TDecisionRow[]; texts: readonly string[]; listIds: readonly (string | null)[] };

/** A decision column as the batch sends it: its name, its element type, and its binary array (columns.ts). */
type TColumn = { name: string; type: string; encode: (batch: TBatch) => TBinaryParam };

const rowColumn = <T>(name: string, type: string, array: (values: readonly (T | null)[]) => TBinaryParam, of: (r: TDecisionRow) => T | null): TColumn => ({
  name,
  type,
  encode: (batch) => array(batch.rows.map(of)),
});

/**
 * A batch travels as one binary array per column, the records (stored texts, see TStoredRecord)
 * among them, so neither side escapes or re-parses anything: Postgres's only pass over a record is
 * the json column's input check. unnest() pairs the arrays by position, in this order, which is
 * also decision_log_insert_keyed's parameter order.
 */
const COLUMNS: readonly TColumn[] = [
  rowColumn("id", "uuid", uuidParam, (r) => r.id),
  rowColumn("created_at", "timestamptz", timestamptzParam, (r) => r.createdAt),
  rowColumn("operation", "text", textParam, (r) => r.operation),
  rowColumn("region", "text", textParam, (r) => r.region),
  rowColumn("request_id", "text", textParam, (r) => r.requestId),
  rowColumn("policy_version", "text", textParam, (r) => r.policyVersion),
  rowColumn("shadow_version", "text", textParam, (r) => r.shadowVersion),
  rowColumn("selected_provider", "text", textParam, (r) => r.selectedProvider),
  rowColumn("reason_code", "text", textParam, (r) => r.reasonCode),
  rowColumn("shadow_pick", "text", textParam, (r) => r.shadowPick),
  rowColumn("shadow_agrees", "bool", boolParam, (r) => r.shadowAgrees),
  rowColumn("score_margin", "float8", float8Param, (r) => r.scoreMargin),
  rowColumn("stale", "bool", boolParam, (r) => r.stale),
  // An age past int4 (about 25 days) is stored as its maximum rather than failing the batch.
  rowColumn("metric_age_ms", "int4", int4Param, (r) => (r.metricAgeMs === null || !Number.isFinite(r.metricAgeMs) ? null : Math.min(r.metricAgeMs, INT4_MAX))),
  rowColumn("fallback_action", "text", textParam, (r) => r.fallbackAction),
  rowColumn("degraded", "bool", boolParam, (r) => r.degraded),
  rowColumn("durability", "text", textParam, (r) => r.durability),
  rowColumn("instance_id", "text", textParam, (r) => r.instanceId),
  rowColumn("api_key_id", "text", textParam, (r) => r.apiKeyId ?? null),
  rowColumn("offered_providers", "text", textParam, (r) => r.offeredProviders ?? null),
  rowColumn("source", "text", textParam, (r) => r.source ?? "server"),
  // Not a column of decision: whether the row is added to decision_rollup (see TDecisionRow.counted).
  rowColumn("counted", "bool", boolParam, (r) => r.counted !== false),
  { name: "candidates_id", type: "uuid", encode: (batch) => uuidParam(batch.listIds) },
  { name: "record", type: "text", encode: (batch) => textParam(batch.texts) },
];

const columnParams = (batch: TBatch): TBinaryParam[] => COLUMNS.map((c) => c.encode(batch));

const COLUMN_NAMES = COLUMNS.map((c) => c.name).join(", ");
const COLUMN_PARAMS = COLUMNS.map((c, i) => `$${i + 1}::${c.type}[]`).join(", ");
/** The columns of decision itself (`counted` only steers the rollup). */
const STORED = COLUMNS.filter((c) => c.name !== "counted");
/** The k-th parameter after the columns' (window, time bounds, new candidate lists). */
const after = (k: number) => `$${COLUMNS.length + 1 + k}`;

/**
 * Inserts the rows whose (operation, request_id, api_key_id) has no decision within the idempotency window
 * and returns the existing decisions for the others: one statement, one round trip, one
 * transaction for the whole batch (the `decision_log_insert_rolled` function, see its
 * migrations), which also adds the cells of the rows it inserted to decision_rollup_pending
 * (roller.ts moves them into the rollups). Rows for the same key arriving at two instances at
 * once are serialised by a transaction-scoped advisory lock per key.
 * The lookup is one index probe per row (LATERAL ... LIMIT 1), never a scan of the window, and
 * the time bounds prune it to the partitions the window can touch. New candidate lists travel as
 * three more parameters (ids, days, texts).
 */
const INSERT_DEDUPED = `select input_id, id, body from decision_log_insert_rolled(${COLUMN_PARAMS},
  ${after(0)}::bigint, ${after(1)}::timestamptz, ${after(2)}::timestamptz, ${after(3)}::uuid[], ${after(4)}::date[], ${after(5)}::text[])`;

/** decision_rollup's key, in the order its rows are upserted (two writers then lock them in the same order). */
const ROLLUP_KEY = "operation, region, minute, selected_provider, reason_code, policy_version, shadow, stale, degraded, source, shadow_pick";

/**
 * Replay of spooled rows: the primary key makes a second replay of the same segment a no-op, and
 * only the rows this statement inserted (RETURNING) are added to decision_rollup, so a segment
 * replayed after a crash mid-replay is not counted twice.
 */
const INSERT_REPLAY = `with t as (select * from unnest(${COLUMN_PARAMS}) as t(${COLUMN_NAMES})),
  ins as (insert into decision (${STORED.map((c) => c.name).join(", ")})
    select ${STORED.map((c) => (c.name === "record" ? "t.record::json" : `t.${c.name}`)).join(", ")} from t
    on conflict do nothing returning id)
  insert into decision_rollup (${ROLLUP_KEY}, count)
  select t.operation, t.region, date_bin('1 minute', t.created_at, timestamptz 'epoch') as m, coalesce(t.selected_provider, ''), t.reason_code,
         coalesce(t.policy_version, ''), case when t.shadow_agrees is null then 'none' when t.shadow_agrees then 'agree' else 'disagree' end,
         t.stale, t.degraded, t.source, coalesce(t.shadow_pick, ''), count(*)
    from ins join t on t.id = ins.id
   where t.counted
   group by 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11
   order by 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11
  on conflict (${ROLLUP_KEY}) do update set count = decision_rollup.count + excluded.count`;

let lastDayMs = NaN;
let lastDay = "";
/** The UTC day of a row as YYYY-MM-DD (its list's partition), formatted once per day rather than per row. */
function utcDay(ms: number): string {
  const dayMs = dayStart(ms);
  if (dayMs !== lastDayMs) {
    lastDayMs = dayMs;
    lastDay = isoDay(dayMs);
  }
  return lastDay;
}

/**
 * Writes one batch in one transaction; returns, by the input row id, the already-logged decision
 * that wins over it (the caller answers with that one instead). Split records go in as their
 * stored text with their list's id; each list the batch needs goes in with it unless `lists`
 * says this process has committed it for that day already.
 */
export async function insertDecisions(
  client: pg.PoolClient,
  writes: readonly TDecisionWrite[],
  lists: ListMemory = createListMemory(),
): Promise<Map<string, TExistingDecision>> {
  let oldest = Infinity;
  let newest = -Infinity;
  const rows = new Array<TDecisionRow>(writes.length);
  const texts = new Array<string>(writes.length);
  const listIds = new Array<string | null>(writes.length);
  const newKeys: string[] = [];
  const newIds: string[] = [];
  const newDays: string[] = [];
  const newLists: string[] = [];
  // Consecutive rows mostly share one list: only a change of list or day needs a look.
  let lastList: TCandidateList | null = null;
  let lastListDay = "";
  for (let i = 0; i < writes.length; i++) {
    const { row, stored } = writes[i]!;
    rows[i] = row;
    if (row.createdAt < oldest) oldest = row.createdAt;
    if (row.createdAt > newest) newest = row.createdAt;
    if (stored === null) {
      texts[i] = row.body;
      listIds[i] = null;
      continue;
    }
    texts[i] = stored.text;
    listIds[i] = stored.list.id;
    const day = utcDay(row.createdAt);
    if (stored.list === lastList && day === lastListDay) continue;
    lastList = stored.list;
    lastListDay = day;
    const key = `${day} ${stored.list.id}`;
    if (lists.has(key) || newKeys.includes(key)) continue;
    newKeys.push(key);
    newIds.push(stored.list.id);
    newDays.push(day);
    newLists.push(stored.list.json);
  }
  // An earlier decision for the same request is not newer than this batch, give or take instance clock skew.
  const params = [
    ...columnParams({ rows, texts, listIds }),
    int8Scalar(IDEMPOTENCY_WINDOW_MS),
    timestamptzScalar(oldest - IDEMPOTENCY_WINDOW_MS),
    timestamptzScalar(newest + CLOCK_SKEW_MS),
    uuidParam(newIds),
    dateParam(newDays),
    textParam(newLists),
  ];
  // Columns: input_id, id, body.
  const found = await callPrepared(client, "decision_insert_batch", INSERT_DEDUPED, params);
  for (const key of newKeys) lists.add(key);
  const existing = new Map<string, TExistingDecision>();
  for (const [inputId, id, body] of found) existing.set(inputId!, { id: id!, body: body! });
  return existing;
}

/** Spooled rows keep their whole record (they carry no split form): the list is stored inline. */
export async function replayDecisions(client: pg.PoolClient, rows: readonly TDecisionRow[]): Promise<void> {
  await callPrepared(client, "decision_replay_batch", INSERT_REPLAY, columnParams({ rows, texts: rows.map((r) => r.body), listIds: rows.map(() => null) }));
}
