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
  const head = JSON.stringify({
    decisionId,
    id: record.id,
    at: record.at,
    operation: record.operation,
    region: record.region,
    requestId: record.requestId,
    policyVersion: record.policyVersion,
    strategy: record.strategy,
    selected: record.selected,
    reasonCode: record.reasonCode,
    override: record.override,
  });
  const tail = JSON.stringify({
    scoreMargin: record.scoreMargin,
    metricAgeSeconds: record.metricAgeSeconds,
    stale: record.stale,
    fallback: record.fallback,
    shadow: record.shadow,
    // Only price strategies have it; JSON leaves undefined out, so other answers stay as they were.
    strategyEvidence: record.strategyEvidence,
    ...extra,
  });
  const rest = tail === "{}" ? "}" : `,${tail.slice(1)}`;
  const prefix = `${head.slice(0, -1)},"candidates":`;
  const list = listOf(record.candidates);
  return { text: prefix + list.json + rest, parts: { before: prefix, list: list.bytes, after: rest }, stored: { text: `${prefix}null${rest}`, list } };
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
const tails = new WeakMap<readonly TCandidateRecord[], Map<string, string>>();

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
  let byKey = tails.get(record.candidates);
  if (byKey === undefined) {
    byKey = new Map();
    tails.set(record.candidates, byKey);
  }
  const key = `${record.policyVersion}\u0000${record.selected}\u0000${record.reasonCode}\u0000${degraded}`;
  let tail = byKey.get(key);
  if (tail === undefined) {
    tail = tailText(record, degraded);
    byKey.set(key, tail);
  }
  return tail;
}

/**
 * decide's default answer: what a caller acts on (the provider, the decision id, the reason code,
 * the policy version, the fallback and the failover order), without the candidates' explanation.
 * The full record is logged as it always was; `explain: "full"` or GET /decisions/:id returns it.
 * The keys are in a fixed order, the same text as JSON.stringify of { decisionId, operation,
 * region, requestId, policyVersion, selected, reasonCode, fallback, degraded, order }.
 */
export function compactAnswer(decisionId: string, record: TCompactSource, degraded: boolean): string {
  // decisionId is a UUID (nothing to escape); the request's own strings are.
  return `{"decisionId":"${decisionId}","operation":${JSON.stringify(record.operation)},"region":${JSON.stringify(record.region)},"requestId":${JSON.stringify(record.requestId)},${compactTail(record, degraded)}`;
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
