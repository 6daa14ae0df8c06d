import type { TProviderInfo } from "../types";
import type { TGateInput } from "./gate";

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
    now: 1_750_000_000_000,
    ...extra,
  };
}
