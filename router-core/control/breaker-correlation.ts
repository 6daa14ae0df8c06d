import type { TCircuitBreaker, TCircuitBreakerState } from "./circuit-breaker";
import { checkNumber, closed } from "./options";

/**
 * Correlated regional breakers of one provider. Region-scoped breakers keep a regional failure
 * regional (scenario 5: EU fails, NA and APAC must not trip), but they make a provider-wide
 * failure expensive: every region has to learn it from its own consecutive failures, and every
 * region then spends its own half-open probes on a provider that is down everywhere. A
 * provider-wide breaker pays each of those once.
 *
 * So, per provider, across its regional breakers, counting only episodes (closed → open) that
 * began within `window_seconds` of each other, and only while they are not closed again:
 * - With one region's breaker open, the provider's closed breakers elsewhere are suspect: they
 *   open on `suspect_consecutive_failures` consecutive failures instead of the configured count.
 *   The window keeps a long regional outage from making the other regions suspect for its whole
 *   duration: only failures close in time to the opening are taken as the same event.
 * - With `min_regions` or more open, the failure is provider-wide: the remaining closed breakers
 *   open on their first failure, and one region probes for all: the breaker that opened first
 *   (the lead) keeps its schedule, and the others stay open for a further period after the
 *   lead's next probe time (see below). When the lead closes they half-open at once and probe for
 *   themselves, so a provider that recovered regains every region quickly, and a region still
 *   failing on its own stays open; from then on the episode is each region's own again.
 * - A run of the provider's failures with no success anywhere in between, as long as the
 *   configured `consecutive_failures`, is provider-wide too: every closed breaker opens at once.
 *   That is the evidence a single provider-wide breaker acts on, so regional breakers never learn
 *   an outage later than one breaker would. Any success, in any region, ends the run, so a
 *   failing region among answering ones never makes one. A regional failure whose first calls
 *   all fall in its own region can, so the presumption is tested first: of the breakers whose
 *   episodes began together, one that opened without failures of its own leads, and the first
 *   probe goes to a region that has not failed. If it succeeds the lead closes and releases the
 *   others, which probe for themselves (a region that really fails stays open); if it fails the
 *   outage is provider-wide and that region goes on probing for all.
 * - The held members wait a full period of the lead's own (at least `open_seconds`) after its
 *   next probe time: a lead in a quiet region may see its probe call late, and without that the
 *   others would half-open and probe too.
 *
 * `min_regions: 0` turns correlation off.
 */
export type TBreakerCorrelationConfig = {
  min_regions: number;
  window_seconds: number;
  suspect_consecutive_failures: number;
};

export const DEFAULT_BREAKER_CORRELATION: Readonly<TBreakerCorrelationConfig> = Object.freeze({
  min_regions: 2,
  window_seconds: 120,
  suspect_consecutive_failures: 2,
});

export function resolveBreakerCorrelation(options: Partial<TBreakerCorrelationConfig> = {}): TBreakerCorrelationConfig {
  const c = { ...DEFAULT_BREAKER_CORRELATION, ...options };
  checkNumber("min_regions", c.min_regions, closed(0), null, true);
  if (c.min_regions === 1) throw new RangeError("min_regions must be 0 (off) or at least 2, got 1");
  checkNumber("window_seconds", c.window_seconds, closed(0), null);
  checkNumber("suspect_consecutive_failures", c.suspect_consecutive_failures, closed(1), null, true);
  return c;
}

/** The provider's current run of failures across all its regions: no success anywhere since it began. */
export type TProviderFailureRun = {
  readonly failures: number;
  /** Indices of the regions with a failure in the run, in the order of their first failure. */
  readonly regions: readonly number[];
};

export const NO_FAILURE_RUN: TProviderFailureRun = Object.freeze({ failures: 0, regions: Object.freeze([]) as readonly number[] });

/** The run after one more provider call in `region`: a success anywhere ends it. */
export function extendFailureRun(run: TProviderFailureRun, region: number, ok: boolean): TProviderFailureRun {
  if (ok) return NO_FAILURE_RUN;
  const regions = run.regions.includes(region) ? run.regions : [...run.regions, region];
  return { failures: run.failures + 1, regions };
}

/** The closed → open transition that began the breaker's current episode; null while closed, or when history no longer holds it. */
function episodeOpening(s: TCircuitBreakerState): TCircuitBreakerState["history"][number] | null {
  if (s.state === "closed") return null;
  for (let i = s.history.length - 1; i >= 0; i--) {
    const h = s.history[i]!;
    if (h.from === "closed" && h.to === "open") return h;
  }
  return null;
}

/** When the breaker's current episode began: its last closed → open transition, null while closed. */
function episodeStart(s: TCircuitBreakerState): number | null {
  if (s.state === "closed") return null;
  return episodeOpening(s)?.at ?? s.openedAt;
}

/** 0 for a breaker whose episode began by correlation, without failures of its own; 1 otherwise. */
function ownEvidence(s: TCircuitBreakerState): number {
  return episodeOpening(s)?.reason === "correlated_failures" ? 0 : 1;
}

/** Some breaker of the provider closed after probing at or after `at`: the provider answered again somewhere. */
function recoveredSince(states: readonly TCircuitBreakerState[], at: number): boolean {
  return states.some((s) => {
    const last = s.history.at(-1);
    return s.state === "closed" && last !== undefined && last.reason === "probe_successes" && last.at >= at;
  });
}

export type TCorrelation = {
  /** Index of the breaker whose episode began first. */
  lead: number;
  /** Indices of the breakers whose episodes began within the window of the lead's. */
  members: number[];
};

/** The newest group of not-closed breakers whose episodes began within the window of the first of them. */
export function findCorrelation(states: readonly TCircuitBreakerState[], config: TBreakerCorrelationConfig): TCorrelation | null {
  if (config.min_regions === 0) return null;
  const starts: { i: number; at: number; own: number }[] = [];
  states.forEach((s, i) => {
    const at = episodeStart(s);
    if (at !== null) starts.push({ i, at, own: ownEvidence(s) });
  });
  if (starts.length === 0) return null;
  // Of episodes that began together, one opened without failures of its own leads: its probe tests the presumption.
  starts.sort((a, b) => a.at - b.at || a.own - b.own || a.i - b.i);
  const windowMs = config.window_seconds * 1000;
  let best: TCorrelation | null = null;
  for (const first of starts) {
    const members = starts.filter((x) => x.at >= first.at && x.at - first.at <= windowMs).map((x) => x.i);
    if (best === null || members.length > best.members.length) best = { lead: first.i, members };
  }
  return best;
}

/**
 * Applies the correlation to one provider's regional breakers (index = region) after any of
 * them changed or counted a failure; returns the same array when nothing changes. `now` decides
 * which episodes are recent enough to make a closed region suspect; `run` is the provider's
 * current failure run (`extendFailureRun`, kept by the caller over every call of the provider).
 * Pure: the caller stores the result.
 */
export function correlateRegionalBreakers(
  states: readonly TCircuitBreakerState[],
  now: number,
  breaker: TCircuitBreaker,
  config: TBreakerCorrelationConfig,
  run: TProviderFailureRun = NO_FAILURE_RUN,
): readonly TCircuitBreakerState[] {
  if (config.min_regions === 0) return states;
  let out: TCircuitBreakerState[] | null = null;
  const set = (i: number, s: TCircuitBreakerState) => {
    out ??= [...states];
    out[i] = s;
  };
  if (run.failures >= breaker.config.consecutive_failures) {
    const why = `presumed provider-wide failure: ${run.failures} consecutive failures in ${run.regions.length} region(s), no success in any region`;
    states.forEach((s, i) => {
      if (s.state === "closed") set(i, breaker.trip(s, now, why));
    });
    return holdBehindLead(out ?? states, now, breaker, config);
  }
  const found = findCorrelation(states, config);
  // Once a region has recovered, the rest of the episode is each region's own again.
  if (found === null || recoveredSince(states, episodeStart(states[found.lead]!) ?? now)) return states;
  const windowMs = config.window_seconds * 1000;
  const recent = found.members.filter((i) => now - (episodeStart(states[i]!) ?? -Infinity) <= windowMs).length;
  const wide = found.members.length >= config.min_regions;
  const threshold = wide ? 1 : config.suspect_consecutive_failures;
  states.forEach((s, i) => {
    if (s.state !== "closed" || s.consecutiveFailures < threshold || (!wide && recent === 0)) return;
    const why = wide ? `provider-wide failure: ${found.members.length} regions' breakers open` : "another region's breaker opened";
    set(i, breaker.trip(s, now, `${s.consecutiveFailures} consecutive failure(s) while ${why}`));
  });
  return holdBehindLead(out ?? states, now, breaker, config);
}

/**
 * One region probes for all: in a provider-wide episode the members other than the lead stay
 * open for a period of the lead's own (at least `open_seconds`) after the lead's next probe time.
 * Returns `tripped` itself when no member's hold changes.
 */
function holdBehindLead(
  tripped: readonly TCircuitBreakerState[],
  now: number,
  breaker: TCircuitBreaker,
  config: TBreakerCorrelationConfig,
): readonly TCircuitBreakerState[] {
  const group = findCorrelation(tripped, config);
  if (group === null || group.members.length < config.min_regions) return tripped;
  const lead = tripped[group.lead]!;
  const nextProbe = lead.state === "open" && lead.openUntil !== null ? Math.max(now, lead.openUntil) : now;
  // A period as long as the lead's own: a lead in a quiet region can take a while to see its probe call.
  const period = lead.openUntil !== null && lead.openedAt !== null ? lead.openUntil - lead.openedAt : 0;
  const holdUntil = nextProbe + Math.max(breaker.config.open_seconds * 1000, period);
  let out: TCircuitBreakerState[] | null = null;
  tripped.forEach((s, i) => {
    if (i === group.lead || s.state !== "open" || !group.members.includes(i) || s.openUntil === null || s.openUntil >= holdUntil) return;
    out ??= [...tripped];
    out[i] = { ...s, openUntil: holdUntil };
  });
  return out ?? tripped;
}

/**
 * The other half of the rule: when the lead of a provider-wide episode closes, the breakers it
 * held open half-open at once. Call with the provider's breakers before and after a change.
 */
export function releaseHeldBreakers(
  before: readonly TCircuitBreakerState[],
  after: readonly TCircuitBreakerState[],
  now: number,
  config: TBreakerCorrelationConfig,
): readonly TCircuitBreakerState[] {
  const was = findCorrelation(before, config);
  if (was === null || was.members.length < config.min_regions) return after;
  const lead = after[was.lead];
  if (lead === undefined || lead.state !== "closed") return after;
  let out: TCircuitBreakerState[] | null = null;
  after.forEach((s, i) => {
    if (i === was.lead || s.state !== "open" || !was.members.includes(i) || s.openUntil === null || s.openUntil <= now) return;
    out ??= [...after];
    out[i] = { ...s, openUntil: now };
  });
  return out ?? after;
}
