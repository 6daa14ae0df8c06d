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
 * The input for the gates that depend on the provider and the region rule alone (region,
 * compliance, allow-list): the request- and time-dependent fields are inert. Fields in the order of
 * evaluate.ts' reused input, so the gates see one object shape.
 */
export function staticGateInput(
  provider: TProviderInfo,
  region: string,
  requiredCompliance: readonly string[],
  regionAllowList: readonly string[] | null,
  staleness: { maxMetricAgeSeconds: number; stalePolicy: TStalePolicy } = { maxMetricAgeSeconds: 0, stalePolicy: "safe_default" },
): TGateInput {
  return {
    provider,
    region,
    requiredCompliance,
    regionAllowList,
    breaker: undefined,
    quota: undefined,
    killed: false,
    metrics: undefined,
    metricAgeSeconds: null,
    stale: true,
    maxMetricAgeSeconds: staleness.maxMetricAgeSeconds,
    stalePolicy: staleness.stalePolicy,
    now: 0,
  };
}

const CONSTANT = Symbol("constant gate outcome");
const VALID_FROM = Symbol("gate outcome valid from");
const VALID_UNTIL = Symbol("gate outcome valid until");

/**
 * A gate outcome that is a constant: the gate returns this object whenever its input (the
 * candidate's provider, breaker, quota, metrics, kill and the stale flag) leads to it, whatever the
 * time. A decision on an unchanged routing state may then reuse it without running the gate again
 * (decision/evaluate.ts keeps evaluations made of constant and timed outcomes only). Frozen; the
 * mark is a non-enumerable symbol, invisible to JSON.
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
 * A new outcome that the same input would give at any time from `from` to `until` (epoch ms,
 * inclusive; a window may be narrower than the truth, never wider), such as "next attempt in 12s"
 * for the second in which it reads 12. A decision on an unchanged routing state within every
 * outcome's window may reuse it. An outcome neither constant nor timed is reused by nothing: a
 * gate whose outcome depends on the time in a way it cannot bound must return that.
 */
export function timedOutcome(o: TGateOutcome, from: number, until: number): TGateOutcome {
  Object.defineProperty(o, VALID_FROM, { value: from });
  Object.defineProperty(o, VALID_UNTIL, { value: until });
  return o;
}

/** A timed outcome's window, or undefined for any other outcome. */
export function validFrom(o: TGateOutcome): number | undefined {
  return (o as { [VALID_FROM]?: number })[VALID_FROM];
}

export function validUntil(o: TGateOutcome): number | undefined {
  return (o as { [VALID_UNTIL]?: number })[VALID_UNTIL];
}

/**
 * A window for timedOutcome from the exact bounds within which an outcome computed at `now` reads
 * the same, [lo, hi) in real time: a millisecond inside each bound (so rounding in the arithmetic
 * that produced them cannot widen it), and always including `now` itself.
 */
export function windowAround(now: number, lo: number, hi: number): { from: number; until: number } {
  return { from: Math.min(now, lo + 1), until: Math.max(now, hi - 1) };
}

/**
 * A countdown to `at` in whole seconds as details print it, max(0, ceil((at − now) / 1000)), with
 * the window in which it reads the same.
 */
export function countdown(at: number, now: number): { seconds: number; from: number; until: number } {
  const seconds = Math.max(0, Math.ceil((at - now) / 1000));
  // ceil((at − t) / 1000) = s exactly for t in [at − 1000 s, at − 1000 (s − 1)); 0 from `at` on.
  const { from, until } = seconds === 0 ? windowAround(now, at, Infinity) : windowAround(now, at - 1000 * seconds, at - 1000 * (seconds - 1));
  return { seconds, from, until };
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
