import { createElement } from "react";
import { renderToStaticMarkup } from "react-dom/server";
import { describe, expect, it } from "vitest";
import { DecisionOutcomes } from "../components/decisions/decision-detail";
import { toRecordView } from "../lib/console/decisions/decision-record-view";
import type { TCallOutcome, TDecisionDetail } from "../lib/console/decisions/get-decision";
import { uuidV7At } from "../lib/dataplane/decision-id";

/**
 * Issue 35 item 7: execute tells its caller only that the connection to a provider failed; the
 * cause (refused port, blocked address, redirect host) is shown to on-call in the drilldown,
 * on the row of the attempt it belongs to.
 */
const AT = Date.UTC(2026, 11, 4, 12);

function call(provider: string, detail: string | null): TCallOutcome {
  return { at: AT + 10, provider, status: "failure", errorClass: "network", httpStatus: null, latencyMs: 3, retryCount: 0, detail, reporter: null };
}

function page(calls: TCallOutcome[]): string {
  const record = toRecordView({}, { id: uuidV7At(AT), createdAt: AT, operation: "SEND_SMS", region: "EU", requestId: "r" });
  const d: TDecisionDetail = { record, caller: null, createdAt: AT, degraded: false, durability: "sync", instanceId: "test", calls, outcomes: [] };
  return renderToStaticMarkup(createElement(DecisionOutcomes, { d }));
}

describe("decision drilldown: an attempt's transport cause", () => {
  it("shows each failed attempt's cause on that attempt's row, beside its error class", () => {
    const html = page([
      call("provider_A", "ECONNREFUSED connect 127.0.0.1:43117"),
      call("provider_B", "ERR_PROVIDER_ADDRESS_FORBIDDEN: sms.internal (10.0.0.7) is a private address"),
    ]);
    const rows = html.split("<tr").slice(2);
    expect(rows[0]).toContain("provider_A");
    expect(rows[0]).toMatch(/network<div[^>]*data-testid="call-detail"[^>]*>ECONNREFUSED connect 127\.0\.0\.1:43117</);
    expect(rows[1]).toContain("provider_B");
    expect(rows[1]).toContain("sms.internal (10.0.0.7) is a private address");
    expect(rows[1]).not.toContain("127.0.0.1");
  });

  it("escapes the cause, and shows nothing for an attempt without one", () => {
    const html = page([call("provider_A", `<img src=x onerror="alert(1)">`), call("provider_B", null)]);
    expect(html).not.toContain("<img");
    expect(html).toContain("&lt;img src=x onerror=&quot;alert(1)&quot;&gt;");
    expect(html.match(/data-testid="call-detail"/g)).toHaveLength(1);
  });
});
