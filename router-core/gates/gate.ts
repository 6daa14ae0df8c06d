import type { TGateName, TStalePolicy } from "../policy/names";
import type { TBreakerView, TMetricSnapshot, TProviderInfo, TQuotaView } from "../types";

export type TGateOutcome = { gate: TGateName; passed: boolean; detail: string };

/** Everything a gate may look at for one candidate, resolved once per candidate by decide(). */
export type TGateInput = {
  provider: TProviderInfo;
  region: string;
  /** Union of the region rule's and the request's required compliance tags. */
  requiredCompliance: readonly string[];
  /** The region rule's provider allow-list, or null when the region has none. */
  regionAllowList: readonly string[] | null;
  breaker: TBreakerView | undefined;
  quota: TQuotaView | undefined;
  killed: boolean;
  metrics: TMetricSnapshot | undefined;
  /** Seconds since the newest data in `metrics`; null when there is none. */
  metricAgeSeconds: number | null;
  stale: boolean;
  maxMetricAgeSeconds: number;
  stalePolicy: TStalePolicy;
  now: number;
};

export type TGateFn = (input: TGateInput) => TGateOutcome;

/**
 * Passing outcomes are shared constants: a decision records every gate of every candidate, and
 * on the hot path nearly all of them pass, so this keeps the record allocation-free.
 */
export function passOutcome(gate: TGateName, detail: string): TGateOutcome {
  return Object.freeze({ gate, passed: true, detail });
}

export function failOutcome(gate: TGateName, detail: string): TGateOutcome {
  return { gate, passed: false, detail };
}
