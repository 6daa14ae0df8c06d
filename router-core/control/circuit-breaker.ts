import type { TBreakerState, TBreakerView } from "../types";
import { expectArray, expectNullableNumber, expectNumber, expectObject, expectOneOf, expectString } from "./json-shape";
import { checkNumber, checkTime, closed, open } from "./options";

/**
 * Circuit breaker per provider (or per provider and region), after the token-gateway article's state machine:
 * closed → open on N consecutive failures or a failure rate over a window; open → half_open
 * after the open time; half_open → closed after enough probe successes, → open on any probe
 * failure. Open time grows with repeated openings up to a cap, as Envoy's outlier ejection does,
 * so a provider that keeps failing its probes is tried less and less often.
 *
 * The state is plain JSON (no class, no Map): `JSON.stringify(state)` is its toJSON and
 * `restoreBreakerState` reads it back, so the data plane can persist and share it.
 */

/** Field names are the factor list's `circuit_breaker` section. */
export type TBreakerConfig = {
  consecutive_failures: number;
  failure_rate_threshold: number;
  window_seconds: number;
  min_calls: number;
  open_seconds: number;
  max_open_seconds: number;
  backoff_multiplier: number;
  half_open_probes: number;
  half_open_successes_to_close: number;
};

export const DEFAULT_CIRCUIT_BREAKER_CONFIG: Readonly<TBreakerConfig> = Object.freeze({
  consecutive_failures: 5,
  failure_rate_threshold: 0.3,
  window_seconds: 300,
  min_calls: 20,
  open_seconds: 30,
  max_open_seconds: 600,
  backoff_multiplier: 2,
  half_open_probes: 5,
  half_open_successes_to_close: 3,
});

/**
 * Outcomes must already be classified: only provider-attributable failures (5xx, timeouts,
 * throttles) should arrive as `failure`; a user's bad input is not the provider's fault.
 * `startedAt` lets the breaker ignore calls that began before its current state, so a straggler
 * from before an opening cannot close or re-open a half-open breaker.
 */
export type TBreakerEvent =
  { type: "success"; startedAt?: number } | { type: "failure"; startedAt?: number; detail?: string } | { type: "probe_started" } | { type: "tick" };

export const BREAKER_TRANSITION_REASONS = [
  /** closed → open: `consecutive_failures` failures in a row. */
  "consecutive_failures",
  /** closed → open: failure rate above `failure_rate_threshold` over the window with ≥ `min_calls`. */
  "failure_rate",
  /** open → half_open: the open time elapsed. */
  "open_elapsed",
  /** half_open → closed: `half_open_successes_to_close` probe successes. */
  "probe_successes",
  /** half_open → open: a probe failed; the next open time is longer. */
  "probe_failure",
  /** closed → open: fewer consecutive failures, while the provider's breakers in other regions show a provider-wide failure (breaker-correlation.ts). */
  "correlated_failures",
] as const;
export type TBreakerTransitionReason = (typeof BREAKER_TRANSITION_REASONS)[number];

export type TBreakerTransition = {
  from: TBreakerState;
  to: TBreakerState;
  reason: TBreakerTransitionReason;
  at: number;
  detail: string;
};

export type TBreakerBucket = { start: number; successes: number; failures: number };

export type TCircuitBreakerState = {
  state: TBreakerState;
  /** When the current state was entered. */
  since: number;
  consecutiveFailures: number;
  /** Closed-state outcome counts in WINDOW_BUCKETS slices of the window, oldest first. */
  buckets: TBreakerBucket[];
  /** Openings without a full window of closed time in between: the backoff exponent. */
  openings: number;
  openedAt: number | null;
  openUntil: number | null;
  /** Probe slots of the current (or coming) half-open period. */
  probeLimit: number;
  probesStarted: number;
  probeSuccesses: number;
  /** When every slot is taken: the time outstanding probes are presumed lost and freed again. */
  probeSlotsFreeAt: number | null;
  /** Most recent transitions, oldest first, at most HISTORY_LIMIT. */
  history: TBreakerTransition[];
};

export type TCircuitBreaker = {
  readonly config: Readonly<TBreakerConfig>;
  initial(now: number): TCircuitBreakerState;
  step(state: TCircuitBreakerState, event: TBreakerEvent, now: number): TCircuitBreakerState;
  /** Opens a closed breaker on evidence from outside its own counts (reason `correlated_failures`); other states are returned as they are. */
  trip(state: TCircuitBreakerState, now: number, detail: string): TCircuitBreakerState;
};

/** Enough for the console's breaker history panel without letting a flapping provider grow state. */
export const BREAKER_HISTORY_LIMIT = 50;
/** The failure-rate window is counted in slices so the state stays small and serialisable. */
const WINDOW_BUCKETS = 10;

export function resolveCircuitBreakerConfig(options: Partial<TBreakerConfig> = {}): TBreakerConfig {
  const c = { ...DEFAULT_CIRCUIT_BREAKER_CONFIG, ...options };
  checkNumber("consecutive_failures", c.consecutive_failures, closed(1), null, true);
  checkNumber("failure_rate_threshold", c.failure_rate_threshold, open(0), closed(1));
  checkNumber("window_seconds", c.window_seconds, open(0), null);
  checkNumber("min_calls", c.min_calls, closed(1), null, true);
  checkNumber("open_seconds", c.open_seconds, open(0), null);
  checkNumber("max_open_seconds", c.max_open_seconds, closed(c.open_seconds), null);
  checkNumber("backoff_multiplier", c.backoff_multiplier, closed(1), null);
  checkNumber("half_open_probes", c.half_open_probes, closed(1), null, true);
  checkNumber("half_open_successes_to_close", c.half_open_successes_to_close, closed(1), closed(c.half_open_probes), true);
  return c;
}

/** Breakers and views are keyed like the decision state expects: `provider` or `provider|region`. */
export function breakerKey(provider: string, region?: string | null): string {
  return region ? `${provider}|${region}` : provider;
}

export function createCircuitBreaker(options: Partial<TBreakerConfig> = {}): TCircuitBreaker {
  const config = Object.freeze(resolveCircuitBreakerConfig(options));
  const windowMs = config.window_seconds * 1000;
  const m: TMachine = { config, windowMs, bucketMs: windowMs / WINDOW_BUCKETS };
  return {
    config,
    initial(now) {
      checkTime("now", now);
      return initialState(config, now);
    },
    trip(state, now, detail) {
      checkTime("now", now);
      const s = advance(state, now);
      return s.state === "closed" ? openBreaker(m, s, "correlated_failures", now, detail) : s;
    },
    step(state, event, now) {
      checkTime("now", now);
      const s = advance(state, now);
      if ((event.type === "success" || event.type === "failure") && event.startedAt !== undefined && event.startedAt < s.since) {
        return s;
      }
      switch (s.state) {
        case "closed":
          return stepClosed(m, s, event, now);
        case "half_open":
          return stepHalfOpen(m, s, event, now);
        case "open":
          return s;
      }
    },
  };
}

/** A breaker's resolved configuration with the window figures its steps derive from it. */
type TMachine = { config: Readonly<TBreakerConfig>; windowMs: number; bucketMs: number };

function initialState(config: Readonly<TBreakerConfig>, now: number): TCircuitBreakerState {
  return {
    state: "closed",
    since: now,
    consecutiveFailures: 0,
    buckets: [],
    openings: 0,
    openedAt: null,
    openUntil: null,
    probeLimit: config.half_open_probes,
    probesStarted: 0,
    probeSuccesses: 0,
    probeSlotsFreeAt: null,
    history: [],
  };
}

function openDurationMs(config: Readonly<TBreakerConfig>, openings: number): number {
  return Math.min(config.open_seconds * Math.pow(config.backoff_multiplier, Math.max(0, openings - 1)), config.max_open_seconds) * 1000;
}

function transition(s: TCircuitBreakerState, to: TBreakerState, reason: TBreakerTransitionReason, at: number, detail: string): TCircuitBreakerState {
  const history = [...s.history, { from: s.state, to, reason, at, detail }].slice(-BREAKER_HISTORY_LIMIT);
  return { ...s, state: to, since: at, history };
}

function openBreaker(m: TMachine, s: TCircuitBreakerState, reason: TBreakerTransitionReason, at: number, detail: string): TCircuitBreakerState {
  // A full window of closed time means the provider earned a fresh start on the backoff.
  const earned = s.state === "closed" && at - s.since >= m.windowMs;
  const openings = (earned ? 0 : s.openings) + 1;
  const openUntil = at + openDurationMs(m.config, openings);
  const next = transition(s, "open", reason, at, `${detail}; open for ${(openUntil - at) / 1000} s (opening ${openings})`);
  return {
    ...next,
    openings,
    openedAt: at,
    openUntil,
    consecutiveFailures: 0,
    buckets: [],
    probeLimit: m.config.half_open_probes,
    probesStarted: 0,
    probeSuccesses: 0,
    probeSlotsFreeAt: null,
  };
}

/** Time-driven edges happen lazily, at the moment they were due, on the next event. */
function advance(s: TCircuitBreakerState, now: number): TCircuitBreakerState {
  if (s.state === "open" && s.openUntil !== null && now >= s.openUntil) {
    return transition(s, "half_open", "open_elapsed", s.openUntil, `open time elapsed; ${s.probeLimit} probe slots`);
  }
  if (s.state === "half_open" && s.probeSlotsFreeAt !== null && now >= s.probeSlotsFreeAt) {
    return { ...s, probesStarted: s.probeSuccesses, probeSlotsFreeAt: null };
  }
  return s;
}

function record(m: TMachine, s: TCircuitBreakerState, now: number, failed: boolean): TBreakerBucket[] {
  const { windowMs, bucketMs } = m;
  const start = Math.floor(now / bucketMs) * bucketMs;
  // Slices are oldest first: when the oldest is still inside the window, all are (the common
  // case, once per call on the hot path), and the copy below is the only allocation needed.
  const oldest = s.buckets[0];
  const kept = oldest === undefined || oldest.start > start - windowMs ? s.buckets.slice() : s.buckets.filter((b) => b.start > start - windowMs);
  const last = kept[kept.length - 1];
  if (last && last.start >= start) {
    // Same slice, or a clock that stepped back: count it in the newest slice.
    kept[kept.length - 1] = { start: last.start, successes: last.successes + (failed ? 0 : 1), failures: last.failures + (failed ? 1 : 0) };
    return kept;
  }
  kept.push({ start, successes: failed ? 0 : 1, failures: failed ? 1 : 0 });
  return kept;
}

function stepClosed(m: TMachine, s: TCircuitBreakerState, event: TBreakerEvent, now: number): TCircuitBreakerState {
  const { config, windowMs, bucketMs } = m;
  if (event.type === "probe_started") return s;
  if (event.type === "tick") {
    const start = Math.floor(now / bucketMs) * bucketMs;
    const buckets = s.buckets.filter((b) => b.start > start - windowMs);
    return buckets.length === s.buckets.length ? s : { ...s, buckets };
  }
  const failed = event.type === "failure";
  const buckets = record(m, s, now, failed);
  const consecutiveFailures = failed ? s.consecutiveFailures + 1 : 0;
  const next = { ...s, buckets, consecutiveFailures };
  if (!failed) return next;
  const cause = event.detail ? ` (last: ${event.detail})` : "";
  if (consecutiveFailures >= config.consecutive_failures) {
    return openBreaker(m, next, "consecutive_failures", now, `${consecutiveFailures} consecutive failures${cause}`);
  }
  let calls = 0;
  let failures = 0;
  for (const b of buckets) {
    calls += b.successes + b.failures;
    failures += b.failures;
  }
  const rate = failures / calls;
  if (calls >= config.min_calls && rate > config.failure_rate_threshold) {
    return openBreaker(
      m,
      next,
      "failure_rate",
      now,
      `failure rate ${(rate * 100).toFixed(1)}% > ${(config.failure_rate_threshold * 100).toFixed(1)}% over ${calls} calls in ${config.window_seconds} s${cause}`,
    );
  }
  return next;
}

function stepHalfOpen(m: TMachine, s: TCircuitBreakerState, event: TBreakerEvent, now: number): TCircuitBreakerState {
  const config = m.config;
  if (event.type === "tick") return s;
  if (event.type === "probe_started") {
    if (s.probesStarted >= s.probeLimit) return s;
    const probesStarted = s.probesStarted + 1;
    const probeSlotsFreeAt = probesStarted >= s.probeLimit ? now + config.open_seconds * 1000 : null;
    return { ...s, probesStarted, probeSlotsFreeAt };
  }
  if (event.type === "failure") {
    const cause = event.detail ? `: ${event.detail}` : "";
    return openBreaker(m, s, "probe_failure", now, `probe failed in half_open${cause}`);
  }
  const probeSuccesses = s.probeSuccesses + 1;
  // A success reported without a probe_started still used a slot.
  const probesStarted = Math.max(s.probesStarted, probeSuccesses);
  if (probeSuccesses >= config.half_open_successes_to_close) {
    const closedState = transition(s, "closed", "probe_successes", now, `${probeSuccesses} probe successes`);
    return {
      ...closedState,
      openedAt: null,
      openUntil: null,
      consecutiveFailures: 0,
      buckets: [],
      probesStarted: 0,
      probeSuccesses: 0,
      probeSlotsFreeAt: null,
    };
  }
  return { ...s, probeSuccesses, probesStarted, probeSlotsFreeAt: null };
}

/**
 * What decide() reads. An open breaker whose time is up reports half_open with a free probe
 * slot even before an event has moved the stored state, so the first probe is not delayed
 * until some unrelated outcome arrives.
 */
export function breakerView(state: TCircuitBreakerState, now: number): TBreakerView {
  const opened = state.openedAt === null ? {} : { openedAt: state.openedAt };
  if (state.state === "closed") return { state: "closed", probeAvailable: false };
  if (state.state === "open") {
    const due = state.openUntil === null || now >= state.openUntil;
    const nextAttempt = state.openUntil === null ? {} : { nextAttemptAt: state.openUntil };
    return { state: due ? "half_open" : "open", probeAvailable: due && state.probeLimit > 0, ...opened, ...nextAttempt };
  }
  const slotsFreed = state.probeSlotsFreeAt !== null && now >= state.probeSlotsFreeAt;
  const probeAvailable = state.probesStarted < state.probeLimit || slotsFreed;
  const nextAttempt = !probeAvailable && state.probeSlotsFreeAt !== null ? { nextAttemptAt: state.probeSlotsFreeAt } : {};
  return { state: "half_open", probeAvailable, ...opened, ...nextAttempt };
}

const STATES = ["closed", "open", "half_open"] as const;

export function restoreBreakerState(json: unknown): TCircuitBreakerState {
  const o = expectObject("breaker", json);
  return {
    state: expectOneOf("breaker.state", o.state, STATES),
    since: expectNumber("breaker.since", o.since),
    consecutiveFailures: expectNumber("breaker.consecutiveFailures", o.consecutiveFailures),
    buckets: expectArray("breaker.buckets", o.buckets).map((raw, i) => {
      const b = expectObject(`breaker.buckets[${i}]`, raw);
      return {
        start: expectNumber(`breaker.buckets[${i}].start`, b.start),
        successes: expectNumber(`breaker.buckets[${i}].successes`, b.successes),
        failures: expectNumber(`breaker.buckets[${i}].failures`, b.failures),
      };
    }),
    openings: expectNumber("breaker.openings", o.openings),
    openedAt: expectNullableNumber("breaker.openedAt", o.openedAt),
    openUntil: expectNullableNumber("breaker.openUntil", o.openUntil),
    probeLimit: expectNumber("breaker.probeLimit", o.probeLimit),
    probesStarted: expectNumber("breaker.probesStarted", o.probesStarted),
    probeSuccesses: expectNumber("breaker.probeSuccesses", o.probeSuccesses),
    probeSlotsFreeAt: expectNullableNumber("breaker.probeSlotsFreeAt", o.probeSlotsFreeAt),
    history: expectArray("breaker.history", o.history).map((raw, i) => {
      const h = expectObject(`breaker.history[${i}]`, raw);
      return {
        from: expectOneOf(`breaker.history[${i}].from`, h.from, STATES),
        to: expectOneOf(`breaker.history[${i}].to`, h.to, STATES),
        reason: expectOneOf(`breaker.history[${i}].reason`, h.reason, BREAKER_TRANSITION_REASONS),
        at: expectNumber(`breaker.history[${i}].at`, h.at),
        detail: expectString(`breaker.history[${i}].detail`, h.detail),
      };
    }),
  };
}
