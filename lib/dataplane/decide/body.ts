import { createHash } from "node:crypto";
import type { TCandidateRecord, TDecisionRecord } from "../../../router-core/index";
import type { TCandidateList, TStoredRecord } from "../decision-log/rows";

/**
 * A candidate list's JSON and content id. router-core hands consecutive decisions on an unchanged
 * routing state the same candidate array (its records are immutable), so both are kept per array:
 * most of a decision's answer (about 90% of 3.5 KB with three candidates) is serialised once per
 * state change rather than once per decision, and the decision log stores it once
 * (decision_candidates) rather than in every row.
 */
const lists = new WeakMap<readonly TCandidateRecord[], TAnswerList>();

/** A candidate list with its text's UTF-8 bytes, encoded once and written as they are by every answer that has it. */
type TAnswerList = TCandidateList & { bytes: Buffer };

function listOf(candidates: readonly TCandidateRecord[]): TAnswerList {
  let list = lists.get(candidates);
  if (list === undefined) {
    const json = JSON.stringify(candidates);
    list = { id: listId(json), json, bytes: Buffer.from(json) };
    lists.set(candidates, list);
  }
  return list;
}

/** The first 128 bits of the text's SHA-256, written as a UUID: equal lists get the same id on every instance. */
export function listId(json: string): string {
  const h = createHash("sha256").update(json).digest("hex");
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-${h.slice(12, 16)}-${h.slice(16, 20)}-${h.slice(20, 32)}`;
}

/**
 * A decision's answer: `text`, exactly `JSON.stringify({ decisionId, ...record, ...extra })` (the
 * same keys in the same order) with the candidate list's text reused (see above); `parts`, the
 * same answer as the text before the list, the list's bytes and the text after it, for writing
 * without building or encoding the whole text (handler.ts, sendParts); and `stored`, the text with
 * `"candidates":null` and the list beside it, as the decision log stores it.
 */
export type TDecisionBody = { text: string; parts: TAnswerParts; stored: TStoredRecord };

export type TAnswerParts = { before: string; list: Buffer; after: string };

export function decisionBody(decisionId: string, record: TDecisionRecord, extra: Readonly<Record<string, unknown>>): TDecisionBody {
  // Written field by field rather than JSON.stringify of two objects (and the extra's spread): the
  // same text, at about a third of the cost on decide's path. Nested values (fallback, shadow, the
  // price evidence) are rare or null and go through JSON.stringify as before.
  const prefix =
    `{"decisionId":${jsonString(decisionId)},"id":${jsonString(record.id)},"at":${jsonNumber(record.at)},"operation":${jsonString(record.operation)}` +
    `,"region":${jsonString(record.region)},"requestId":${jsonString(record.requestId)},"policyVersion":${jsonNullableString(record.policyVersion)}` +
    `,"strategy":${jsonString(record.strategy)},"selected":${jsonNullableString(record.selected)},"reasonCode":${jsonString(record.reasonCode)}` +
    `,"override":${jsonString(record.override)},"candidates":`;
  let rest =
    `,"scoreMargin":${jsonNumber(record.scoreMargin)},"metricAgeSeconds":${jsonNumber(record.metricAgeSeconds)},"stale":${record.stale ? "true" : "false"}` +
    `,"fallback":${jsonValue(record.fallback)},"shadow":${jsonValue(record.shadow)}`;
  // Only price strategies have it; JSON leaves undefined out, so other answers stay as they were.
  if (record.strategyEvidence !== undefined) rest += `,"strategyEvidence":${JSON.stringify(record.strategyEvidence)}`;
  for (const key of Object.keys(extra)) {
    const value = jsonValue(extra[key]);
    if (value !== undefined) rest += `,${jsonString(key)}:${value}`;
  }
  rest += "}";
  const list = listOf(record.candidates);
  return { text: prefix + list.json + rest, parts: { before: prefix, list: list.bytes, after: rest }, stored: { text: `${prefix}null${rest}`, list } };
}

/**
 * A string's JSON text: quoted as it is when no character needs an escape (the usual operation,
 * region, provider, id or version), else JSON.stringify's (escapes, and \u for lone surrogates).
 */
export function jsonString(s: string): string {
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c < 0x20 || c === 0x22 || c === 0x5c || c > 0x7e) return JSON.stringify(s);
  }
  return `"${s}"`;
}

function jsonNullableString(s: string | null): string {
  return s === null ? "null" : jsonString(s);
}

/** A number's JSON text: what JSON.stringify writes (a finite number as String does, -0 as 0; null, NaN and ±Infinity as null). */
function jsonNumber(n: number | null): string {
  return n === null || !Number.isFinite(n) ? "null" : String(n);
}

/** Any value's JSON text as JSON.stringify writes it (undefined for what an object leaves out), scalars without the call. */
function jsonValue(v: unknown): string | undefined {
  if (v === null) return "null";
  switch (typeof v) {
    case "string":
      return jsonString(v);
    case "number":
      return jsonNumber(v);
    case "boolean":
      return v ? "true" : "false";
    default:
      return JSON.stringify(v) as string | undefined;
  }
}

/**
 * The failover order's JSON: the selected provider, then the other eligible candidates by score
 * (ties by share), each with its selection probability (a client's fail-static pick weighs by it).
 */
function orderJson(candidates: readonly TCandidateRecord[], selected: string | null): string {
  const eligible = candidates.filter((c) => c.eligible).sort((a, b) => (b.score ?? -Infinity) - (a.score ?? -Infinity) || (b.share ?? 0) - (a.share ?? 0));
  const ordered = [...eligible.filter((c) => c.provider === selected), ...eligible.filter((c) => c.provider !== selected)];
  return JSON.stringify(ordered.map((c) => ({ provider: c.provider, selectionProbability: c.selectionProbability })));
}

/** What the compact answer is made of: the record's fields a caller acts on. */
export type TCompactSource = Pick<
  TDecisionRecord,
  "operation" | "region" | "requestId" | "policyVersion" | "selected" | "reasonCode" | "fallback" | "candidates"
>;

/**
 * The compact answer after its request's own fields, by candidate list: consecutive decisions on
 * an unchanged routing state share the array (see `lists`) and mostly the same selection, reason
 * and policy version, so the order is sorted and the text serialised once for all of them. A
 * decision with a fallback (rare, its object new each time) is serialised on its own.
 */
const tails = new WeakMap<readonly TCandidateRecord[], TTail[]>();

/** One compact tail and what it was made for; a list has a few (one per selection and reason, degraded or not). */
type TTail = { policyVersion: string | null; selected: string | null; reasonCode: string; degraded: boolean; text: string };

/** Tails kept per candidate list at most; past it the oldest is replaced (a routing state's list rarely has more). */
const MAX_TAILS = 32;

function tailText(record: TCompactSource, degraded: boolean): string {
  const fields = JSON.stringify({
    policyVersion: record.policyVersion,
    selected: record.selected,
    reasonCode: record.reasonCode,
    fallback: record.fallback,
    degraded,
  });
  return `${fields.slice(1, -1)},"order":${orderJson(record.candidates, record.selected)}}`;
}

function compactTail(record: TCompactSource, degraded: boolean): string {
  if (record.fallback !== null) return tailText(record, degraded);
  let known = tails.get(record.candidates);
  if (known === undefined) {
    known = [];
    tails.set(record.candidates, known);
  }
  // Compared field by field: building a key string per decision to look up cost more than the scan.
  for (const t of known) {
    if (t.selected === record.selected && t.reasonCode === record.reasonCode && t.policyVersion === record.policyVersion && t.degraded === degraded)
      return t.text;
  }
  const text = tailText(record, degraded);
  if (known.length >= MAX_TAILS) known.shift();
  known.push({ policyVersion: record.policyVersion, selected: record.selected, reasonCode: record.reasonCode, degraded, text });
  return text;
}

/**
 * decide's default answer: what a caller acts on (the provider, the decision id, the reason code,
 * the policy version, the fallback and the failover order), without the candidates' explanation.
 * The full record is logged as it always was; `explain: "full"` or GET /decisions/:id returns it.
 * The keys are in a fixed order, the same text as JSON.stringify of { decisionId, operation,
 * region, requestId, policyVersion, selected, reasonCode, fallback, degraded, order }.
 */
export function compactAnswer(decisionId: string, record: TCompactSource, degraded: boolean): string {
  return `{"decisionId":${jsonString(decisionId)},"operation":${jsonString(record.operation)},"region":${jsonString(record.region)},"requestId":${jsonString(record.requestId)},${compactTail(record, degraded)}`;
}

/** The compact answer of a full answer's text (an idempotent replay, read back whole). */
export function compactOfFull(full: string): string {
  const r = JSON.parse(full) as TCompactSource & { decisionId: string; degraded?: boolean };
  return compactAnswer(r.decisionId, r, r.degraded === true);
}

/** Every key of the record is written above: adding one to TDecisionRecord fails here until it is. */
type TWritten =
  | "id"
  | "at"
  | "operation"
  | "region"
  | "requestId"
  | "policyVersion"
  | "strategy"
  | "selected"
  | "reasonCode"
  | "override"
  | "candidates"
  | "scoreMargin"
  | "metricAgeSeconds"
  | "stale"
  | "fallback"
  | "shadow"
  | "strategyEvidence";
const everyKeyWritten: [Exclude<keyof TDecisionRecord, TWritten>] extends [never] ? true : never = true;
void everyKeyWritten;
