import type pg from "pg";
import type { TDecisionRecord } from "../../../router-core/index";
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
};

/**
 * The decision-log row for a router-core record: the columns the console filters on, taken from
 * the record, and `body`, the response text as sent (decide and execute add their own fields).
 */
export function decisionRowOf(
  record: TDecisionRecord,
  row: Pick<TDecisionRow, "id" | "degraded" | "body" | "durability" | "instanceId">,
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
  };
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

const COLUMNS =
  "id, created_at, operation, region, request_id, policy_version, shadow_version, selected_provider, reason_code, shadow_pick, shadow_agrees, score_margin, stale, metric_age_ms, fallback_action, degraded, record, durability, instance_id";

/**
 * A batch travels as two parameters: the small columns as one JSON array (building it is string
 * concatenation; node-pg's text[] encoding escaped every quote of every record, about 0.5 ms per
 * 3.5 KB record), and the records (stored texts, see TStoredRecord) as a text[] in binary format
 * (`textArrayParam`), so neither side escapes or re-parses them: Postgres's only pass over a record
 * is the json column's input check. ROWS FROM pairs the two by position. New candidate lists
 * travel the same way, as three more parameters (ids, days, texts).
 */
const INPUT = `rows from (
    json_to_recordset($1::json) as (id uuid, created_at timestamptz, operation text, region text, request_id text,
      policy_version text, shadow_version text, selected_provider text, reason_code text, shadow_pick text, shadow_agrees bool,
      score_margin float8, stale bool, metric_age_ms int, fallback_action text, degraded bool, durability text, instance_id text),
    unnest($2::text[])
  ) as t(id, created_at, operation, region, request_id, policy_version, shadow_version, selected_provider, reason_code,
         shadow_pick, shadow_agrees, score_margin, stale, metric_age_ms, fallback_action, degraded, durability, instance_id, record)`;

/**
 * Inserts the rows whose (operation, request_id) has no decision within the idempotency window
 * and returns the existing decisions for the others: one statement, one round trip, one
 * transaction for the whole batch (the `decision_log_insert` function, see its migrations). Rows
 * for the same key arriving at two instances at once are serialised by a transaction-scoped
 * advisory lock per key. The lookup is one index probe per row (LATERAL ... LIMIT 1), never a scan
 * of the window, and the time bounds prune it to the partitions the window can touch.
 */
const INSERT_DEDUPED =
  "select input_id, id, body from decision_log_insert($1::json, $2::text[], $3, $4::timestamptz, $5::timestamptz, $6::uuid[], $7::date[], $8::text[])";

/** Replay of spooled rows: the primary key makes a second replay of the same segment a no-op. */
const INSERT_REPLAY = `insert into decision (${COLUMNS})
  select t.id, t.created_at, t.operation, t.region, t.request_id, t.policy_version, t.shadow_version, t.selected_provider, t.reason_code,
         t.shadow_pick, t.shadow_agrees, t.score_margin, t.stale, t.metric_age_ms, t.fallback_action, t.degraded, t.record::json,
         t.durability, t.instance_id
    from ${INPUT}
  on conflict do nothing`;

const str = (v: string | null) => (v === null ? "null" : JSON.stringify(v));
const num = (v: number | null) => (v === null || !Number.isFinite(v) ? "null" : String(v));
const bool = (v: boolean | null) => (v === null ? "null" : v ? "true" : "false");

function batchJson(rows: readonly TDecisionRow[], listIds?: readonly (string | null)[]): string {
  let out = "[";
  for (let i = 0; i < rows.length; i++) {
    const r = rows[i]!;
    if (i > 0) out += ",";
    out +=
      `{"id":"${r.id}","created_at":"${new Date(r.createdAt).toISOString()}","operation":${str(r.operation)},"region":${str(r.region)},` +
      `"request_id":${str(r.requestId)},"policy_version":${str(r.policyVersion)},"shadow_version":${str(r.shadowVersion)},` +
      `"selected_provider":${str(r.selectedProvider)},"reason_code":${str(r.reasonCode)},"shadow_pick":${str(r.shadowPick)},` +
      `"shadow_agrees":${bool(r.shadowAgrees)},"score_margin":${num(r.scoreMargin)},"stale":${bool(r.stale)},` +
      `"metric_age_ms":${num(r.metricAgeMs)},"fallback_action":${str(r.fallbackAction)},"degraded":${bool(r.degraded)},` +
      `"durability":${str(r.durability)},"instance_id":${str(r.instanceId)},"candidates_id":${str(listIds?.[i] ?? null)}}`;
  }
  return `${out}]`;
}

const TEXT_OID = 25;

/**
 * Texts as a one-dimensional text[] in Postgres's binary array format (node-pg sends a Buffer
 * parameter as binary): a header (dimensions, no nulls, element type, length, lower bound 1),
 * then each element as its byte length and its UTF-8 bytes.
 */
export function textArrayParam(texts: readonly string[]): Buffer {
  if (texts.length === 0) return Buffer.from([0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, TEXT_OID]);
  let size = 20;
  const lengths = new Array<number>(texts.length);
  for (let i = 0; i < texts.length; i++) {
    lengths[i] = Buffer.byteLength(texts[i]!);
    size += 4 + lengths[i]!;
  }
  const out = Buffer.allocUnsafe(size);
  out.writeInt32BE(1, 0);
  out.writeInt32BE(0, 4);
  out.writeInt32BE(TEXT_OID, 8);
  out.writeInt32BE(texts.length, 12);
  out.writeInt32BE(1, 16);
  let at = 20;
  for (let i = 0; i < texts.length; i++) {
    out.writeInt32BE(lengths[i]!, at);
    at += 4;
    at += out.write(texts[i]!, at, "utf8");
  }
  return out;
}

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
    batchJson(rows, listIds),
    textArrayParam(texts),
    IDEMPOTENCY_WINDOW_MS,
    new Date(oldest - IDEMPOTENCY_WINDOW_MS).toISOString(),
    new Date(newest + CLOCK_SKEW_MS).toISOString(),
    newIds,
    newDays,
    textArrayParam(newLists),
  ];
  const res = await client.query<{ input_id: string; id: string; body: string }>({ name: "decision_insert_dedup", text: INSERT_DEDUPED, values: params });
  for (const key of newKeys) lists.add(key);
  const existing = new Map<string, TExistingDecision>();
  for (const r of res.rows) existing.set(r.input_id, { id: r.id, body: r.body });
  return existing;
}

/** Spooled rows keep their whole record (they carry no split form): the list is stored inline. */
export async function replayDecisions(client: pg.PoolClient, rows: readonly TDecisionRow[]): Promise<void> {
  await client.query({ name: "decision_insert_replay", text: INSERT_REPLAY, values: [batchJson(rows), textArrayParam(rows.map((r) => r.body))] });
}
