import type { TCandidateRecord, TDecisionRecord } from "../../../router-core/index";

/**
 * JSON of a candidate list. router-core hands consecutive decisions on an unchanged routing state
 * the same candidate array (its records are immutable), so the text is kept per array: most of a
 * decision's answer (about 90% of 3.5 KB with three candidates) is serialised once per state
 * change rather than once per decision.
 */
const candidatesText = new WeakMap<readonly TCandidateRecord[], string>();

function candidatesJson(candidates: readonly TCandidateRecord[]): string {
  let text = candidatesText.get(candidates);
  if (text === undefined) {
    text = JSON.stringify(candidates);
    candidatesText.set(candidates, text);
  }
  return text;
}

/**
 * The answer body for a decision: exactly `JSON.stringify({ decisionId, ...record, ...extra })`
 * (the same keys in the same order), with the candidate list's text reused (see above).
 */
export function decisionBodyJson(decisionId: string, record: TDecisionRecord, extra: Readonly<Record<string, unknown>>): string {
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
    ...extra,
  });
  const rest = tail === "{}" ? "}" : `,${tail.slice(1)}`;
  return `${head.slice(0, -1)},"candidates":${candidatesJson(record.candidates)}${rest}`;
}

/** Every key of the record is written above: adding one to TDecisionRecord fails here until it is. */
type TWritten = "id" | "at" | "operation" | "region" | "requestId" | "policyVersion" | "strategy" | "selected" | "reasonCode" | "override" | "candidates" | "scoreMargin" | "metricAgeSeconds" | "stale" | "fallback" | "shadow";
const everyKeyWritten: [Exclude<keyof TDecisionRecord, TWritten>] extends [never] ? true : never = true;
void everyKeyWritten;
