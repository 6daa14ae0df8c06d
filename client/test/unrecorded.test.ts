import { describe, expect, it } from "vitest";
import { SwitchyardClient, type TDecisionReport } from "../src/index";

const report = (decisionId: string): TDecisionReport => ({
  decisionId,
  operation: "SEND_SMS",
  region: "EU",
  requestId: `r-${decisionId}`,
  selected: "provider_A",
  mode: "local",
  order: ["provider_A"],
  reasonCode: "share_weighted",
  policyVersion: "v1",
  sampleRate: 0.01,
  countReported: true,
});

const outcome = (decisionId: string) =>
  ({ type: "provider_call", decisionId, provider: "provider_A", status: "success", latencyMs: 5, retryCount: 0 }) as const;

describe("reports of decisions left out of the sample", () => {
  it("keeps the last maxUnrecorded still waiting, oldest first out, past those an outcome took", () => {
    const client = new SwitchyardClient({ baseUrl: "http://127.0.0.1:1", apiKey: "k", flushOnExit: false, buffer: { flushIntervalMs: 0, maxUnrecorded: 2 } });
    client.skipRecord(report("a"));
    client.skipRecord(report("b"));
    client.reportOutcome(outcome("b")); // b's report is sent: a and c fit
    client.skipRecord(report("c"));
    client.reportOutcome(outcome("a")); // still kept, so sent too
    expect(client.stats().local).toMatchObject({ made: 3, pending: 2, sampledOut: 1 });
    client.skipRecord(report("d"));
    client.skipRecord(report("e")); // c out
    client.reportOutcome(outcome("c"));
    client.reportOutcome(outcome("d"));
    expect(client.stats().local).toMatchObject({ made: 5, pending: 3, sampledOut: 2 });
  });

  it("stays bounded and exact over many decisions, most of them with outcomes", () => {
    const client = new SwitchyardClient({
      baseUrl: "http://127.0.0.1:1",
      apiKey: "k",
      flushOnExit: false,
      buffer: { flushIntervalMs: 0, maxUnrecorded: 100, maxDecisions: 100_000 },
    });
    const n = 10_000;
    for (let i = 0; i < n; i++) {
      client.skipRecord(report(`d${i}`));
      if (i % 4 !== 0) client.reportOutcome(outcome(`d${i}`));
    }
    // Each skipped report evicts before its outcome takes it: the 99 left are every fourth of the
    // last 396; the one before them is gone.
    for (let i = n - 396; i < n; i += 4) client.reportOutcome(outcome(`d${i}`));
    client.reportOutcome(outcome(`d${n - 400}`));
    const sent = (3 * n) / 4 + 99;
    expect(client.stats().local).toMatchObject({ made: n, pending: sent, sampledOut: n - sent });
  });
});
