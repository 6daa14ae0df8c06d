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

const CONSTANT = Symbol("constant gate outcome");

/**
 * A gate outcome that is a constant: the gate returns this object whenever its input (the
 * candidate's provider, breaker, quota, metrics, kill and the stale flag) leads to it, whatever the
 * time. A decision on an unchanged routing state may then reuse it without running the gate again
 * (decision/evaluate.ts keeps evaluations made of constants only), so an outcome that says
 * something about the time ("next attempt in 12s", a metric age) must be a new object each time,
 * from failOutcome() or a literal. Frozen; the mark is a non-enumerable symbol, invisible to JSON.
 */
export function constantOutcome(o: TGateOutcome): TGateOutcome {
  if (isConstantOutcome(o)) return o;
  const c = { gate: o.gate, passed: o.passed, detail: o.detail };
  Object.defineProperty(c, CONSTANT, { value: true });
  return Object.freeze(c);
}

export function isConstantOutcome(o: TGateOutcome): boolean {
  return (o as { [CONSTANT]?: boolean })[CONSTANT] === true;
}

/**
 * Passing outcomes are shared constants: a decision records every gate of every candidate, and
 * on the hot path nearly all of them pass, so this keeps the record allocation-free.
 */
export function passOutcome(gate: TGateName, detail: string): TGateOutcome {
  return constantOutcome({ gate, passed: true, detail });
}

/** A failing outcome: a new object, unless a gate makes a constant of it with constantOutcome(). */
export function failOutcome(gate: TGateName, detail: string): TGateOutcome {
  return { gate, passed: false, detail };
}
