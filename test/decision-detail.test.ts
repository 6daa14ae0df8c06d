import { createElement } from "react";
import { renderToStaticMarkup } from "react-dom/server";
import { describe, expect, it } from "vitest";
import { REASON_CODES, type TDecisionRecord } from "../router-core/index";
import { CandidatesTable, DecisionOutcomes, DecisionSummary } from "../components/decisions/decision-detail";
import { toRecordView } from "../lib/console/decisions/decision-record-view";
import type { TDecisionDetail } from "../lib/console/decisions/get-decision";
import { localDecisionRow } from "../lib/dataplane/local-decisions/handler";
import type { TLocalDecision } from "../lib/dataplane/local-decisions/schema";
import { uuidV7At } from "../lib/dataplane/decision-id";

/**
 * Issue 35 item 9: the drilldown renders every record the decision log accepts, whoever wrote
 * it: Switchyard (each reason code), a client's LocalRouter (router-core's record or any JSON
 * object the API's `record` takes) and a client's fail-static report (no candidates, no ages).
 */
const AT = Date.UTC(2026, 11, 4, 12);

function serverRecord(reasonCode: string): TDecisionRecord {
  const none = reasonCode === "no_eligible_provider" || reasonCode === "no_candidates";
  const contribution = { score: "completion_rate_5m", raw: 0.98, index: 90, weight: 0.4, value: 36, defaulted: false } as const;
  const candidate = {
    provider: "provider_A",
    priority: 0,
    gates: [{ gate: "supports_region", passed: !none, detail: "serves EU" }],
    passedGates: !none,
    guardrail: none ? null : { passed: true, violations: [], excess: 0 },
    eligible: !none,
    contributions: none ? [] : [contribution],
    score: none ? null : 36,
    share: 1,
    selectionProbability: none ? 0 : 1,
    metricsAt: AT - 4_000,
    stale: false,
    sampleCount: 40,
    metricScope: "region",
  } as const;
  return {
    id: uuidV7At(AT),
    at: AT,
    operation: "SEND_SMS",
    region: "EU",
    requestId: "r-1",
    policyVersion: "v1",
    strategy: "weighted_score",
    selected: none ? null : "provider_A",
    reasonCode: reasonCode as TDecisionRecord["reasonCode"],
    override: reasonCode === "pinned" ? "pinned" : reasonCode === "pin_ineligible" ? "pin_ineligible" : "none",
    candidates: reasonCode === "no_candidates" ? [] : [candidate],
    scoreMargin: null,
    metricAgeSeconds: none ? null : 4,
    stale: false,
    fallback: none ? { action: "degraded_message", retryAfterSeconds: 30, detail: "no eligible provider" } : null,
    shadow: null,
    strategyEvidence: undefined,
  };
}

/** What the decision log stores for a client's report: the row decisions/batch builds, its record text parsed back. */
function reported(d: Partial<TLocalDecision>): unknown {
  const base: TLocalDecision = { decisionId: uuidV7At(AT), operation: "SEND_SMS", region: "EU", requestId: "r-2", selected: "provider_B", mode: "local" };
  return JSON.parse(localDecisionRow({ ...base, ...d }, "sync", "test", AT + 500, "key-1").body);
}

function detailOf(raw: unknown): TDecisionDetail {
  const record = toRecordView(raw, { id: uuidV7At(AT), createdAt: AT, operation: "SEND_SMS", region: "EU", requestId: "r" });
  const reporter = { id: "key-1", prefix: "ab12cd34", name: "checkout", revoked: false };
  return {
    record,
    caller: reporter,
    createdAt: AT,
    degraded: false,
    durability: "sync",
    instanceId: "test",
    calls: [
      {
        at: AT + 10,
        provider: "provider_B",
        status: "failure",
        errorClass: "timeout",
        httpStatus: null,
        latencyMs: 5000,
        retryCount: 0,
        detail: null,
        reporter,
      },
    ],
    outcomes: [{ at: AT + 20, provider: null, completed: false, failureStage: "provider_call", withinSla: false, reporter: null }],
  };
}

function render(raw: unknown): string {
  const d = detailOf(raw);
  const html = [
    renderToStaticMarkup(createElement(DecisionSummary, { d })),
    renderToStaticMarkup(createElement(CandidatesTable, { d, ages: {} })),
    renderToStaticMarkup(createElement(DecisionOutcomes, { d })),
  ].join("");
  return html.replace(/<[^>]+>/g, " ");
}

describe("decision drilldown", () => {
  it.each(REASON_CODES.map((c) => [c]))("renders a Switchyard decision with reason code %s", (code) => {
    const text = render(JSON.parse(JSON.stringify(serverRecord(code))));
    expect(text).toContain(code);
    expect(text).toContain("Switchyard");
    expect(text).toContain("sy_ab12cd34… (checkout)");
  });

  it("renders a client's fail-static report, shaped exactly as POST /api/v1/decisions/batch stores it", () => {
    const raw = reported({ mode: "fail_static", source: "last_decision", order: ["provider_B", "provider_A"], reason: "timeout: no answer in 1000 ms" });
    const text = render(raw);
    expect(text).toContain("fail_static");
    expect(text).toContain("client, fail-static (Switchyard not reached) · from last_decision · order provider_B → provider_A · timeout: no answer in 1000 ms");
    expect(text).toContain("no gate or score was evaluated");
    expect(text).toMatch(/Stale\s+yes/);
    expect(text).toContain("No candidate was evaluated");
  });

  it("renders a client's local decision: router-core's record, or any object the API accepts as `record`", () => {
    const real = reported({ reasonCode: "share_weighted", record: serverRecord("share_weighted") as unknown as Record<string, unknown> });
    expect(render(real)).toContain("client, in its process (LocalRouter)");
    const odd = reported({
      reasonCode: "share_weighted",
      record: {
        candidates: [{ provider: "provider_B", score: 3, eligible: true, gates: "none" }, { score: 1 }, null, "x"],
        metricAgeSeconds: "4",
        scoreMargin: {},
        shadow: { agrees: "yes" },
        fallback: [],
        strategyEvidence: { rows: [{}] },
      },
    });
    const text = render(odd);
    expect(text).toContain("provider_B");
    expect(text).toContain("not scored");
  });
});
