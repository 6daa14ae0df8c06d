/**
 * A logged decision record as the drilldown shows it. The decision log holds what decide and
 * execute wrote, but also what clients reported through POST /api/v1/decisions/batch: a
 * fail-static report has no candidates or metric age, and a LocalRouter's `record` is the
 * client's JSON, any shape the API's `record: object` accepts. Every field the page reads is
 * made well-typed here, so any accepted record renders (missing: "–", none, or "not reported").
 * Pure: no I/O, used by the server page and by tests.
 */
import type { TCandidateRecord, TDecisionRecord } from "@/router-core/index";

/** Where the decision was made: by Switchyard (decide, execute), in a client's process, or by a client that could not reach Switchyard. */
export type TDecisionSource = "server" | "local" | "fail_static";

export type TDecisionRecordView = TDecisionRecord & {
  source: TDecisionSource;
  /** fail_static: where the client's answer came from (last_decision, static, snapshot). */
  failStaticSource: string | null;
  /** A client's failover order, as it reported it. */
  order: readonly string[];
  /** A client's reason for not asking Switchyard. */
  reason: string | null;
  /**
   * local: the share of such decisions whose records the client sends (1: every one, as for each
   * non-routine decision; below 1: this record stands for a sample of routine ones). Null when not reported.
   */
  sampleRate: number | null;
};

type TJson = Record<string, unknown>;

const obj = (v: unknown): TJson | null => (v !== null && typeof v === "object" && !Array.isArray(v) ? (v as TJson) : null);
const str = (v: unknown): string | null => (typeof v === "string" ? v : null);
const finite = (v: unknown): number | null => (typeof v === "number" && Number.isFinite(v) ? v : null);
const bool = (v: unknown): boolean => v === true;
const list = (v: unknown): unknown[] => (Array.isArray(v) ? v : []);
const strings = (v: unknown): string[] => list(v).filter((s): s is string => typeof s === "string");

function gatesOf(v: unknown): TCandidateRecord["gates"] {
  return list(v).flatMap((g) => {
    const o = obj(g);
    const gate = str(o?.gate);
    return o && gate ? [{ gate: gate as TCandidateRecord["gates"][number]["gate"], passed: bool(o.passed), detail: str(o.detail) ?? "" }] : [];
  });
}

function contributionsOf(v: unknown): TCandidateRecord["contributions"] {
  return list(v).flatMap((x) => {
    const o = obj(x);
    const score = str(o?.score);
    const [index, weight, value] = [finite(o?.index), finite(o?.weight), finite(o?.value)];
    if (!o || !score || index === null || weight === null || value === null) return [];
    return [{ score: score as TCandidateRecord["contributions"][number]["score"], raw: finite(o.raw), index, weight, value, defaulted: o.defaulted === true }];
  });
}

function guardrailOf(v: unknown): TCandidateRecord["guardrail"] {
  const o = obj(v);
  return o ? { passed: bool(o.passed), violations: strings(o.violations), excess: finite(o.excess) ?? 0 } : null;
}

function candidateOf(v: unknown, i: number): TCandidateRecord | null {
  const o = obj(v);
  const provider = str(o?.provider);
  if (!o || !provider) return null;
  const contributions = contributionsOf(o.contributions);
  const scope = str(o.metricScope);
  return {
    provider,
    priority: finite(o.priority) ?? i,
    gates: gatesOf(o.gates),
    passedGates: bool(o.passedGates),
    guardrail: guardrailOf(o.guardrail),
    eligible: bool(o.eligible),
    contributions,
    // A score without its contributions cannot be broken down: shown as not scored.
    score: contributions.length > 0 ? finite(o.score) : null,
    share: finite(o.share),
    selectionProbability: finite(o.selectionProbability) ?? 0,
    metricsAt: finite(o.metricsAt),
    stale: bool(o.stale),
    sampleCount: finite(o.sampleCount) ?? 0,
    metricScope: (scope ?? "none") as TCandidateRecord["metricScope"],
  };
}

function sourceOf(r: TJson): TDecisionSource {
  if (r.mode === "fail_static") return "fail_static";
  return r.local === true || r.mode === "local" ? "local" : "server";
}

function shadowOf(v: unknown): TDecisionRecord["shadow"] {
  const o = obj(v);
  if (!o) return null;
  return {
    policyVersion: str(o.policyVersion),
    selected: str(o.selected),
    reasonCode: (str(o.reasonCode) ?? "unknown") as TDecisionRecord["reasonCode"],
    agrees: bool(o.agrees),
    scoreMargin: finite(o.scoreMargin),
  };
}

function fallbackOf(v: unknown): TDecisionRecord["fallback"] {
  const o = obj(v);
  const action = str(o?.action);
  if (!o || !action) return null;
  const retry = finite(o.retryAfterSeconds);
  const provider = str(o.provider);
  return {
    action: action as NonNullable<TDecisionRecord["fallback"]>["action"],
    detail: str(o.detail) ?? "",
    ...(retry === null ? {} : { retryAfterSeconds: retry }),
    ...(provider === null ? {} : { provider }),
  };
}

/** `raw`: the record as stored; `row`: the decision row's own columns, which win where the record disagrees. */
export function toRecordView(raw: unknown, row: { id: string; createdAt: number; operation: string; region: string; requestId: string }): TDecisionRecordView {
  const r = obj(raw) ?? {};
  const candidates = list(r.candidates)
    .map(candidateOf)
    .filter((c): c is TCandidateRecord => c !== null);
  const strategy = str(r.strategy);
  const source = sourceOf(r);
  return {
    id: row.id,
    at: finite(r.at) ?? row.createdAt,
    operation: row.operation,
    region: row.region,
    requestId: str(r.requestId) ?? row.requestId,
    policyVersion: str(r.policyVersion),
    strategy: (strategy ?? "not reported") as TDecisionRecord["strategy"],
    selected: str(r.selected),
    reasonCode: (str(r.reasonCode) ?? "unknown") as TDecisionRecord["reasonCode"],
    override: (str(r.override) ?? "none") as TDecisionRecord["override"],
    candidates,
    scoreMargin: finite(r.scoreMargin),
    metricAgeSeconds: finite(r.metricAgeSeconds),
    // A fail-static decision is made without current metrics (its row is marked stale too).
    stale: bool(r.stale) || source === "fail_static",
    fallback: fallbackOf(r.fallback),
    shadow: shadowOf(r.shadow),
    // Switchyard's own evidence only: a client's record may hold anything under that name.
    strategyEvidence: source === "server" && obj(r.strategyEvidence) ? (r.strategyEvidence as TDecisionRecord["strategyEvidence"]) : undefined,
    source,
    failStaticSource: str(r.source),
    order: strings(r.order),
    reason: str(r.reason),
    sampleRate: finite(r.sampleRate),
  };
}
