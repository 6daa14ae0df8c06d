import type { TMetricSnapshot, TProviderInfo } from "../types";
import type { TGateInput } from "./gate";

const FIXTURE_NOW = 1_750_000_000_000;

/** A healthy metric snapshot (500 samples, 98% completed, p95 300 ms, 5 s old at the fixture's now); tests override what they exercise. */
export function metricSnapshot(extra: Partial<TMetricSnapshot> = {}): TMetricSnapshot {
  return {
    sampleCount: 500,
    completionRate: 0.98,
    errorRate: 0.01,
    p95Ms: 300,
    p99Ms: 600,
    recentIncidents: 0,
    confidence: 1,
    updatedAt: FIXTURE_NOW - 5_000,
    scope: "region",
    ...extra,
  };
}

/** A gate input where every gate passes; tests override what they exercise. */
export function gateInput(extra: Partial<TGateInput> = {}, provider: Partial<TProviderInfo> = {}): TGateInput {
  return {
    provider: { key: "a", regions: ["EU"], complianceTags: ["gdpr"], costPerRequest: 0.01, credentialStatus: "valid", enabled: true, ...provider },
    region: "EU",
    requiredCompliance: [],
    regionAllowList: null,
    breaker: undefined,
    quota: undefined,
    killed: false,
    metrics: undefined,
    metricAgeSeconds: 5,
    stale: false,
    maxMetricAgeSeconds: 60,
    stalePolicy: "safe_default",
    now: FIXTURE_NOW,
    ...extra,
  };
}
