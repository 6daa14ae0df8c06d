import type { TCandidateWork } from "../decision/record";
import type { TMetricSnapshot, TQuotaView } from "../types";
import type { TStrategyInput } from "./strategy";

/** An eligible candidate as decide() hands it to a strategy: only what strategies read is meaningful. */
export function candidate(provider: string, extra: { cost?: number; p99Ms?: number | null; quota?: TQuotaView } = {}): TCandidateWork {
  const metrics: TMetricSnapshot = {
    sampleCount: 500,
    completionRate: 0.99,
    errorRate: 0.01,
    p95Ms: 300,
    p99Ms: extra.p99Ms === undefined ? 600 : extra.p99Ms,
    recentIncidents: 0,
    confidence: 1,
    updatedAt: 0,
    scope: "region",
  };
  return {
    index: 0,
    info: { key: provider, regions: ["*"], complianceTags: [], costPerRequest: extra.cost ?? 0.01, credentialStatus: "valid", enabled: true },
    metrics,
    breaker: undefined,
    quota: extra.quota,
    treatment: "fresh",
    record: {
      provider,
      priority: 0,
      gates: [],
      passedGates: true,
      guardrail: null,
      eligible: true,
      contributions: [],
      score: 50,
      share: null,
      selectionProbability: 0,
      metricsAt: 0,
      stale: false,
      sampleCount: 500,
      metricScope: "region",
    },
  };
}

/** What the last select() given input(eligible) wrote: the probabilities by eligible position. */
const written = new WeakMap<readonly TCandidateWork[], Float64Array>();

export const probabilities = (eligible: readonly TCandidateWork[]) => Array.from(written.get(eligible) ?? []);

export const input = (
  eligible: readonly TCandidateWork[],
  extra: { shares?: Record<string, number> | null; u?: number; sequence?: number; p99BaselineMs?: number } = {},
): TStrategyInput => {
  const out = new Float64Array(eligible.length);
  written.set(eligible, out);
  return {
    eligible,
    shares: extra.shares,
    u: extra.u ?? 0.5,
    sequence: extra.sequence,
    p99BaselineMs: extra.p99BaselineMs,
    probabilities: out,
  };
};
