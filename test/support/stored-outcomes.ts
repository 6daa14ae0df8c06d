import { uuidV7At } from "../../lib/dataplane/decision-id";
import type { TDecisionRow } from "../../lib/dataplane/decision-log/rows";
import type { TPendingOutcome } from "../../lib/dataplane/telemetry/outcomes";

/** A deterministic generator, so a failure can be reproduced. */
function lcg(seed: number) {
  let s = seed >>> 0;
  return () => {
    s = (Math.imul(s, 1664525) + 1013904223) >>> 0;
    return s / 2 ** 32;
  };
}

/**
 * Accepted outcomes for seeded decisions, as the outcome service hands them to its store: for
 * about half the decisions one or two business outcomes (the later one is the latest), and for
 * every third one with a selected provider a failed call then a successful retry, each reported
 * at its own millisecond so every read's order is defined. Written through each store's own path
 * (insertOutcomes for Postgres, the store's insert for ClickHouse), a parity test compares reads.
 */
export function seededOutcomes(rows: readonly TDecisionRow[], seed = 5): TPendingOutcome[] {
  const rnd = lcg(seed);
  const out: TPendingOutcome[] = [];
  rows.forEach((r, i) => {
    const decision = { operation: r.operation, region: r.region, selected: r.selectedProvider, offered: r.selectedProvider ? [r.selectedProvider] : [] };
    const reporter = { apiKeyId: i % 4 === 0 ? null : "env:SWITCHYARD_API_KEY", operations: null };
    const add = (offsetMs: number, outcome: TPendingOutcome["outcome"], detail?: string) => {
      const receivedAt = r.createdAt + offsetMs;
      out.push({ id: uuidV7At(receivedAt), outcome, receivedAt, decision, applied: true, reporter, ...(detail ? { detail } : {}) });
    };
    const business = (offsetMs: number, completed: boolean) =>
      add(offsetMs, { type: "business", decisionId: r.id, completed, withinSla: completed, ...(completed ? {} : { failureStage: "provider_call" as const }) });
    const k = rnd();
    if (k < 0.3) business(1_000, true);
    else if (k < 0.5) business(1_000, false);
    else if (k < 0.6) {
      business(1_000, true);
      business(2_000, false);
    }
    if (i % 3 === 0 && r.selectedProvider) {
      const provider = r.selectedProvider;
      add(
        300,
        { type: "provider_call", decisionId: r.id, provider, status: "failure", errorClass: "timeout", latencyMs: 2_000, retryCount: 0 },
        "connect ETIMEDOUT",
      );
      add(700, { type: "provider_call", decisionId: r.id, provider, status: "success", latencyMs: 120.5, retryCount: 1, httpStatus: 200 });
    }
  });
  return out;
}
