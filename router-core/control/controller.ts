import type { TShares } from "../types";
import {
  expectNullableNumber,
  expectNullableString,
  expectNumber,
  expectNumberRecord,
  expectObject,
  expectOneOf,
  expectString,
  expectStringArray,
} from "./json-shape";
import { checkNumber, checkTime, closed, open } from "./options";

/**
 * The traffic-share controller for one (operation, region): the only place shares move (DESIGN.md
 * "Core semantics", paper 4.6, 4.10, 4.11). Each tick:
 *
 * 1. Exclusion. A hard gate excludes at decide time, per request: decide spreads an ineligible
 *    provider's share over the eligible ones, so no real request reaches it from that moment on.
 *    The controller's planned shares then follow one of two rules:
 *    - A provider that failed any hard gate other than the circuit breaker alone (quota, region,
 *      compliance, credentials, kill, freshness under `exclude`, or the breaker together with one
 *      of those) loses its planned share at once, spread over the eligible providers in
 *      proportion to their shares (`hard_exclusion`). Those signals are unambiguous and do not
 *      heal by themselves, so they are not rate-limited (paper 4.11).
 *    - A provider excluded only by its circuit breaker (failed gates exactly
 *      `circuit_breaker_closed`) keeps a planned share: it is treated like a provider traffic was
 *      moved away from, its planned share falls at the capped rate (step 4) and stops at the
 *      probe floor (`circuit_open_shift_to_secondary`, capped when the cap binds). A breaker
 *      heals by itself: when it half-opens, the gate passes for its probe slots and that floor
 *      is what carries the probe calls (paper Table 12: "circuit state and traffic caps limit
 *      further movement … probe traffic later detects recovery, a half-open state validates
 *      health"). Served traffic still drops at once: the planned share is not the served one
 *      while the breaker is open.
 *    An excluded leader is displaced and the best eligible provider by score takes over at once.
 * 2. Leadership. The incumbent leader stays unless a challenger's score beats it by
 *    `hysteresis_score_margin`, and only when the incumbent's score rests on at least
 *    `min_sample_size` samples: a decline needs evidence before traffic moves. A former leader
 *    displaced by degradation or exclusion returns only through recovery: it must lead by the
 *    margin on at least `min_sample_size` samples (recovery_detected), keep leading through
 *    `primary_recovery_cooldown_seconds` (cooldown_started), and then takes traffic back at the
 *    capped rate (failback_step … full_failback_completed). When the leader itself is excluded
 *    the best eligible provider by score takes over at once, displaced or not: the alternative
 *    is an ineligible leader.
 * 3. Target. The leader gets everything except a probe floor of `primary_probe_share` on each
 *    provider traffic was moved away from that is eligible or excluded only by its breaker, so
 *    the controller keeps observing it; that is what lets recovery be detected at all (paper
 *    4.10, Table 6).
 * 4. Movement. Shares move toward the target by at most `max_traffic_shift_per_minute`,
 *    pro-rated by the time since the previous tick, counted as the total share that changes
 *    hands (so no single provider moves more than that either).
 *
 * Shares are ≥ 0 and sum to 1. With nobody eligible the last shares are kept (decide answers
 * with the fallback policy) and one `no_eligible_provider` event marks the start of that period.
 */

export type TControllerSafety = {
  max_traffic_shift_per_minute: number;
  primary_probe_share: number;
  primary_recovery_cooldown_seconds: number;
};

/** Field names are the factor list's; a parsed factor list is structurally one of these. */
export type TControllerConfig = {
  /** Static priority order, primary first; ties in score fall back to it. */
  priority: readonly string[];
  hysteresis_score_margin: number;
  safety: TControllerSafety;
  min_sample_size: number;
};

export type TControllerCandidate = {
  provider: string;
  /** Passed every hard gate. */
  eligible: boolean;
  /** 0–100; null when the provider could not be scored (no data). */
  score: number | null;
  sampleCount: number;
  /** Names of the hard gates that failed; decides between hard_exclusion and circuit_open_shift_to_secondary. */
  failedGates?: readonly string[];
  /** Metric snapshot behind the score (completion, p95, …), copied into events as evidence. */
  metrics?: Readonly<Record<string, unknown>>;
};

export type TControllerInput = { candidates: readonly TControllerCandidate[] };

/**
 * The closed set of controller event types. `provider` on the event is the provider the event is
 * about, as noted per type.
 */
export const CONTROLLER_EVENT_TYPES = [
  /** Shares moved toward a challenger that beat the incumbent by the hysteresis margin. provider: the demoted leader. */
  "score_decay_shift",
  /** A provider failing a hard gate other than its breaker alone: its share went to the others at once. provider: the excluded one. */
  "hard_exclusion",
  /**
   * A provider excluded only by its circuit breaker: once when it becomes so (decide stops sending
   * it requests at once), and for each capped step of its planned share down to the probe floor.
   * provider: the breaker-open one.
   */
  "circuit_open_shift_to_secondary",
  /** Capped consolidation toward the new leader after the previous leader was excluded. provider: the excluded leader. */
  "exclusion_rebalance",
  /** A declining share stopped at the probe floor. provider: the floored one. */
  "probe_floor_held",
  /** A provider back in eligibility regained its probe floor. provider: the first one that gained. */
  "probe_floor_restored",
  /** A displaced leader leads again by the margin on enough samples. provider: the recovering one. */
  "recovery_detected",
  /** The recovery cooldown began; the event's detail carries its end. provider: the recovering one. */
  "cooldown_started",
  /** The recovering provider stopped leading, lost eligibility, or was demoted during failback. provider: it. */
  "recovery_aborted",
  /** Capped movement back to the recovered leader. provider: the recovered leader. */
  "failback_step",
  /** The recovered leader reached its full target share. provider: it. */
  "full_failback_completed",
  /** Movement toward the target without a new cause (restored or hand-edited shares). provider: the leader. */
  "rebalance",
  /** Every provider failed a hard gate; shares are kept and the fallback policy answers. provider: null. */
  "no_eligible_provider",
] as const;
export type TControllerEventType = (typeof CONTROLLER_EVENT_TYPES)[number];

export type TControllerEvidence = {
  provider: string;
  eligible: boolean;
  score: number | null;
  sampleCount: number;
  failedGates: string[];
  metrics: Record<string, unknown>;
};

export type TControllerEvent = {
  at: number;
  operation: string;
  region: string | null;
  type: TControllerEventType;
  provider: string | null;
  leader: { from: string | null; to: string | null };
  shares: { from: TShares; to: TShares };
  /** The movement wanted more than max_traffic_shift_per_minute allowed this tick. */
  capped: boolean;
  detail: string;
  evidence: TControllerEvidence[];
};

const SHIFT_REASONS = ["score_decay_shift", "exclusion_rebalance", "circuit_open_shift_to_secondary", "failback_step"] as const;
type TShiftReason = (typeof SHIFT_REASONS)[number];

export type TRecovery = {
  provider: string;
  phase: "cooldown" | "failback";
  detectedAt: number;
  cooldownUntil: number;
};

export type TControllerState = {
  operation: string;
  region: string | null;
  shares: TShares;
  leader: string | null;
  lastTickAt: number;
  /** Providers traffic was moved away from; they keep the probe floor while eligible. */
  probeFloor: string[];
  /** Former leaders displaced by degradation or exclusion; they come back only through recovery. */
  displaced: string[];
  recovery: TRecovery | null;
  /** Why shares are still moving toward the current leader, with the provider they move from. */
  shift: { reason: TShiftReason; from: string | null } | null;
  /** Start of the current period with no eligible provider. */
  noEligibleSince: number | null;
  /** Providers excluded only by their circuit breaker at the last tick, so the opening is reported once. */
  breakerHeld: string[];
};

export type TControllerResult = { state: TControllerState; shares: TShares; events: TControllerEvent[] };

const EPS = 1e-9;
const MINUTE_MS = 60_000;

export function resolveControllerConfig(config: TControllerConfig): TControllerConfig {
  const priority = config.priority;
  if (!Array.isArray(priority) || priority.length === 0) {
    throw new RangeError(`priority must list at least one provider, got ${JSON.stringify(priority)}`);
  }
  const seen = new Set<string>();
  for (const p of priority) {
    if (typeof p !== "string" || p.length === 0) throw new RangeError(`priority entries must be non-empty strings, got ${JSON.stringify(p)}`);
    if (seen.has(p)) throw new RangeError(`priority must not repeat a provider, got "${p}" twice`);
    seen.add(p);
  }
  checkNumber("hysteresis_score_margin", config.hysteresis_score_margin, closed(0), closed(100));
  const safety = config.safety;
  checkNumber("max_traffic_shift_per_minute", safety.max_traffic_shift_per_minute, open(0), closed(1));
  checkNumber("primary_probe_share", safety.primary_probe_share, closed(0), closed(0.5));
  checkNumber("primary_recovery_cooldown_seconds", safety.primary_recovery_cooldown_seconds, closed(0), null);
  checkNumber("min_sample_size", config.min_sample_size, closed(0), null, true);
  if (safety.primary_probe_share * (priority.length - 1) >= 1) {
    throw new RangeError(
      `primary_probe_share must leave the leader a share: with ${priority.length} providers it must be < ${1 / (priority.length - 1)}, got ${safety.primary_probe_share}`,
    );
  }
  return config;
}

/** A fresh (operation, region): all traffic on the static primary, as the conventional baseline. */
export function createControllerState(
  operation: string,
  region: string | null,
  config: TControllerConfig,
  now: number,
): TControllerState {
  const { priority } = resolveControllerConfig(config);
  checkTime("now", now);
  const shares: TShares = {};
  priority.forEach((p, i) => (shares[p] = i === 0 ? 1 : 0));
  return {
    operation,
    region,
    shares,
    leader: priority[0] ?? null,
    lastTickAt: now,
    probeFloor: [],
    displaced: [],
    recovery: null,
    shift: null,
    noEligibleSince: null,
    breakerHeld: [],
  };
}

export function stepController(
  state: TControllerState,
  input: TControllerInput,
  config: TControllerConfig,
  now: number,
): TControllerResult {
  const cfg = resolveControllerConfig(config);
  checkTime("now", now);
  const { max_traffic_shift_per_minute: cap, primary_probe_share: probe } = cfg.safety;
  const cooldownMs = cfg.safety.primary_recovery_cooldown_seconds * 1000;

  const byProvider = new Map<string, TControllerCandidate>();
  for (const c of input.candidates) {
    if (!cfg.priority.includes(c.provider)) {
      throw new RangeError(`candidate provider must be one of priority (${cfg.priority.join(", ")}), got "${c.provider}"`);
    }
    if (byProvider.has(c.provider)) throw new RangeError(`candidate provider must appear once, got "${c.provider}" twice`);
    byProvider.set(c.provider, c);
  }
  // Providers dropped from the priority list still hold shares until they are excluded.
  const universe = [...cfg.priority, ...Object.keys(state.shares).filter((p) => !cfg.priority.includes(p))];
  const isEligible = (p: string) => byProvider.get(p)?.eligible === true;
  const breakerOnly = (p: string) => {
    const c = byProvider.get(p);
    return c !== undefined && !c.eligible && c.failedGates?.length === 1 && c.failedGates[0] === "circuit_breaker_closed";
  };
  // Eligible, or excluded only by a breaker that will half-open: both keep their probe floor.
  const keepsFloor = (p: string) => isEligible(p) || breakerOnly(p);
  const scoreOf = (p: string | null) => (p === null ? null : (byProvider.get(p)?.score ?? null));
  const trusted = (p: string) => (byProvider.get(p)?.sampleCount ?? 0) >= cfg.min_sample_size;
  const rank = (list: readonly string[]) =>
    [...list].sort((a, b) => (scoreOf(b) ?? -Infinity) - (scoreOf(a) ?? -Infinity) || universe.indexOf(a) - universe.indexOf(b));

  const evidence: TControllerEvidence[] = universe.map((p) => {
    const c = byProvider.get(p);
    return {
      provider: p,
      eligible: c?.eligible === true,
      score: c?.score ?? null,
      sampleCount: c?.sampleCount ?? 0,
      failedGates: c ? [...(c.failedGates ?? [])] : ["not_in_priority"],
      metrics: { ...(c?.metrics ?? {}) },
    };
  });

  let shares: TShares = {};
  for (const p of universe) shares[p] = state.shares[p] ?? 0;
  let leader = state.leader;
  const floor = new Set(state.probeFloor);
  const displaced = new Set(state.displaced);
  let recovery = state.recovery;
  let shift = state.shift;
  const events: TControllerEvent[] = [];

  const emit = (
    type: TControllerEventType,
    provider: string | null,
    from: TShares,
    to: TShares,
    detail: string,
    leaderFrom: string | null = leader,
    capped = false,
  ) =>
    events.push({
      at: now,
      operation: state.operation,
      region: state.region,
      type,
      provider,
      leader: { from: leaderFrom, to: leader },
      shares: { from: { ...from }, to: { ...to } },
      capped,
      detail,
      evidence,
    });
  const breakerOpenDetail = (p: string) =>
    `${p} failed only circuit_breaker_closed: decide sends it no request while the breaker is open; its planned share falls at most ${pct(cap)}/min to the ${pct(probe)} probe floor that carries the half-open probes`;
  const fmt = (n: number | null) => (n === null ? "none" : (Math.round(n * 100) / 100).toString());
  const pct = (n: number) => `${(Math.round(n * 1000) / 10).toString()}%`;

  const eligible = universe.filter(isEligible);
  if (eligible.length === 0) {
    if (state.noEligibleSince === null) {
      emit("no_eligible_provider", null, shares, shares, "every provider failed a hard gate; shares kept, fallback policy answers");
    }
    return {
      state: {
        ...state,
        shares,
        lastTickAt: Math.max(state.lastTickAt, now),
        noEligibleSince: state.noEligibleSince ?? now,
        breakerHeld: universe.filter(breakerOnly),
      },
      shares: { ...shares },
      events,
    };
  }

  const promote = (p: string) => {
    leader = p;
    displaced.delete(p);
    floor.delete(p);
  };
  const abortRecovery = (why: string) => {
    if (recovery === null) return;
    emit("recovery_aborted", recovery.provider, shares, shares, why);
    recovery = null;
  };

  // 1. Exclusion: other hard gates at once; a breaker alone through the capped movement of step 4.
  const wasHeld = new Set(state.breakerHeld ?? []);
  const opened = universe.filter((p) => breakerOnly(p) && !wasHeld.has(p));
  let excludedLeaderFrom: string | undefined;
  for (const p of universe) {
    const share = shares[p] ?? 0;
    if (isEligible(p) || share <= 0) continue;
    if (breakerOnly(p)) {
      floor.add(p);
      if (recovery?.provider === p) abortRecovery(`${p}'s circuit breaker opened during recovery`);
      if (p === leader || share > probe + EPS) shift = { reason: "circuit_open_shift_to_secondary", from: p };
      continue;
    }
    const before = shares;
    const eligibleMass = eligible.reduce((sum, q) => sum + (shares[q] ?? 0), 0);
    const heir = rank(eligible)[0] as string;
    const next: TShares = { ...shares, [p]: 0 };
    for (const q of eligible) {
      // Ratio first: with denormal shares the product would underflow to 0 and lose mass.
      const gain = eligibleMass > 0 ? share * ((shares[q] ?? 0) / eligibleMass) : q === heir ? share : 0;
      next[q] = (shares[q] ?? 0) + gain;
    }
    next[heir] = Math.max(0, (next[heir] ?? 0) + 1 - universe.reduce((sum, q) => sum + (next[q] ?? 0), 0));
    shares = next;
    floor.add(p);
    const leaderFrom = leader;
    if (p === leader) {
      displaced.add(p);
      promote(heir);
      shift = { reason: "exclusion_rebalance", from: p };
    }
    if (recovery?.provider === p) abortRecovery(`${p} failed a hard gate during recovery`);
    if (recovery?.provider === leader) recovery = null;
    const gates = byProvider.get(p)?.failedGates ?? (byProvider.has(p) ? [] : ["not_in_priority"]);
    emit(
      "hard_exclusion",
      p,
      before,
      shares,
      `${p} failed ${gates.length > 0 ? gates.join(", ") : "a hard gate"}; its ${pct(share)} moved to eligible providers at once`,
      leaderFrom,
    );
  }
  if (leader === null || !isEligible(leader)) {
    const previous = leader;
    if (previous !== null) displaced.add(previous);
    promote(rank(eligible)[0] as string);
    if (previous !== null && breakerOnly(previous)) {
      floor.add(previous);
      if (recovery?.provider === leader) recovery = null;
      excludedLeaderFrom = previous;
      shift = { reason: "circuit_open_shift_to_secondary", from: previous };
    } else {
      shift = { reason: "exclusion_rebalance", from: previous };
    }
  }

  // 2. Leadership: a challenger that beats a well-sampled incumbent by the margin.
  let leaderChangedFrom: string | null | undefined;
  const incumbent = leader as string;
  const incumbentScore = scoreOf(incumbent);
  const challenger = rank(eligible.filter((p) => p !== incumbent && !displaced.has(p) && scoreOf(p) !== null))[0];
  const challengerScore = challenger === undefined ? null : scoreOf(challenger);
  if (
    challenger !== undefined &&
    challengerScore !== null &&
    incumbentScore !== null &&
    trusted(incumbent) &&
    challengerScore - incumbentScore >= cfg.hysteresis_score_margin
  ) {
    if (recovery?.phase === "failback" && recovery.provider === incumbent) abortRecovery(`${incumbent} degraded again during failback`);
    displaced.add(incumbent);
    floor.add(incumbent);
    promote(challenger);
    leaderChangedFrom = incumbent;
    shift = { reason: "score_decay_shift", from: incumbent };
  }

  // 3. Recovery of a displaced leader: detection, cooldown, then failback.
  const current = leader as string;
  if (recovery?.phase === "cooldown") {
    const p = recovery.provider;
    const ps = scoreOf(p);
    const ls = scoreOf(current);
    if (!isEligible(p) || ps === null || (ls !== null && ps < ls)) {
      abortRecovery(`${p} no longer leads ${current} (score ${fmt(ps)} vs ${fmt(ls)}) during cooldown`);
    }
  }
  if (recovery === null && leaderChangedFrom === undefined) {
    const candidate = rank([...displaced].filter((p) => isEligible(p) && scoreOf(p) !== null))[0];
    const ps = candidate === undefined ? null : scoreOf(candidate);
    const ls = scoreOf(current);
    if (candidate !== undefined && ps !== null && trusted(candidate) && (ls === null || ps - ls >= cfg.hysteresis_score_margin)) {
      const samples = byProvider.get(candidate)?.sampleCount ?? 0;
      recovery = { provider: candidate, phase: "cooldown", detectedAt: now, cooldownUntil: now + cooldownMs };
      emit(
        "recovery_detected",
        candidate,
        shares,
        shares,
        `${candidate} scores ${fmt(ps)} vs leader ${current} ${fmt(ls)} (margin ${cfg.hysteresis_score_margin}) on ${samples} samples (min ${cfg.min_sample_size})`,
      );
      emit(
        "cooldown_started",
        candidate,
        shares,
        shares,
        `failback to ${candidate} waits ${cfg.safety.primary_recovery_cooldown_seconds} s, until ${now + cooldownMs}`,
      );
    }
  }
  if (recovery?.phase === "cooldown" && leaderChangedFrom === undefined && now >= recovery.cooldownUntil) {
    const previous = current;
    promote(recovery.provider);
    floor.add(previous);
    recovery = { ...recovery, phase: "failback" };
    leaderChangedFrom = previous;
    shift = { reason: "failback_step", from: previous };
  }

  // 4. Target and capped movement.
  const head = leader as string;
  for (const p of universe) if (p !== head && keepsFloor(p) && (shares[p] ?? 0) > 0) floor.add(p);
  const target: TShares = {};
  let floors = 0;
  for (const p of universe) {
    target[p] = p !== head && keepsFloor(p) && floor.has(p) ? probe : 0;
    floors += target[p] ?? 0;
  }
  target[head] = 1 - floors;

  const dtMs = Math.max(0, now - state.lastTickAt);
  const budget = Math.min(1, (cap * dtMs) / MINUTE_MS);
  let wanted = 0;
  for (const p of universe) wanted += Math.max(0, (shares[p] ?? 0) - (target[p] ?? 0));
  const moved = Math.min(wanted, budget);
  const fraction = wanted > 0 ? moved / wanted : 0;
  const before = shares;
  const after: TShares = {};
  for (const p of universe) {
    const s = shares[p] ?? 0;
    const t = target[p] ?? 0;
    const v = fraction >= 1 ? t : s + (t - s) * fraction;
    after[p] = Math.abs(v - t) <= EPS ? t : Math.max(0, v);
  }
  // Keep the sum exactly 1 despite rounding; the leader absorbs the residue.
  const others = universe.reduce((sum, p) => (p === head ? sum : sum + (after[p] ?? 0)), 0);
  after[head] = Math.max(0, 1 - others);
  shares = after;

  const changed = universe.some((p) => Math.abs((after[p] ?? 0) - (before[p] ?? 0)) > EPS);
  const reached = universe.every((p) => Math.abs((after[p] ?? 0) - (target[p] ?? 0)) <= EPS);
  const capped = wanted > budget + EPS;
  const announced = new Set<string>();
  const leaderMovedFrom = leaderChangedFrom ?? excludedLeaderFrom;
  if (changed || leaderMovedFrom !== undefined) {
    const leaderGained = (after[head] ?? 0) > (before[head] ?? 0) + EPS || leaderMovedFrom !== undefined;
    const summary = `${head} ${pct(before[head] ?? 0)} → ${pct(after[head] ?? 0)} (target ${pct(target[head] ?? 0)}, moved ${pct(moved)} of ${pct(wanted)} wanted, cap ${pct(budget)} for ${dtMs / 1000} s)`;
    const from = leaderMovedFrom === undefined ? head : leaderMovedFrom;
    if (recovery?.phase === "failback" && recovery.provider === head && leaderGained) {
      emit(reached ? "full_failback_completed" : "failback_step", head, before, after, `failback: ${summary}`, from, capped);
    } else if (leaderGained && shift !== null) {
      let why = "";
      if (shift.reason === "score_decay_shift" && leaderChangedFrom !== undefined) {
        why = `${head} scores ${fmt(challengerScore)} vs ${incumbent} ${fmt(incumbentScore)} (margin ${cfg.hysteresis_score_margin}); `;
      } else if (shift.reason === "circuit_open_shift_to_secondary" && shift.from !== null) {
        why = `${breakerOpenDetail(shift.from)}; `;
        announced.add(shift.from);
      }
      emit(shift.reason === "failback_step" ? "rebalance" : shift.reason, shift.from, before, after, `${why}${summary}`, from, capped);
    } else if (leaderGained) {
      emit("rebalance", head, before, after, summary, from, capped);
    } else {
      const gainer = universe.find((p) => (after[p] ?? 0) > (before[p] ?? 0) + EPS) ?? null;
      emit("probe_floor_restored", gainer, before, after, `probe floor ${pct(probe)} restored for ${gainer ?? "providers"}`, from, capped);
    }
  }
  for (const p of opened) {
    if (announced.has(p)) continue;
    emit("circuit_open_shift_to_secondary", p, after, after, `${breakerOpenDetail(p)}; its planned share stays at ${pct(after[p] ?? 0)}`);
  }
  for (const p of universe) {
    const b = before[p] ?? 0;
    const a = after[p] ?? 0;
    if (p !== head && target[p] === probe && probe > 0 && b > probe + EPS && a <= probe + EPS) {
      const why = breakerOnly(p) ? "its half-open probes have traffic to carry" : "its samples keep coming";
      emit("probe_floor_held", p, after, after, `${p} kept at the ${pct(probe)} probe floor so ${why}`);
    }
  }
  if (reached) {
    shift = null;
    if (recovery?.phase === "failback") recovery = null;
  }

  return {
    state: {
      operation: state.operation,
      region: state.region,
      shares: { ...shares },
      leader,
      // A tick stamped earlier than the last one (clock skew between instances) must not widen the next budget.
      lastTickAt: Math.max(state.lastTickAt, now),
      probeFloor: universe.filter((p) => floor.has(p)),
      displaced: universe.filter((p) => displaced.has(p)),
      recovery,
      shift,
      noEligibleSince: null,
      breakerHeld: universe.filter(breakerOnly),
    },
    shares: { ...shares },
    events,
  };
}

export function restoreControllerState(json: unknown): TControllerState {
  const o = expectObject("controller", json);
  const r = o.recovery === null || o.recovery === undefined ? null : expectObject("controller.recovery", o.recovery);
  const sh = o.shift === null || o.shift === undefined ? null : expectObject("controller.shift", o.shift);
  return {
    operation: expectString("controller.operation", o.operation),
    region: expectNullableString("controller.region", o.region),
    shares: expectNumberRecord("controller.shares", o.shares),
    leader: expectNullableString("controller.leader", o.leader),
    lastTickAt: expectNumber("controller.lastTickAt", o.lastTickAt),
    probeFloor: expectStringArray("controller.probeFloor", o.probeFloor),
    displaced: expectStringArray("controller.displaced", o.displaced),
    recovery: r && {
      provider: expectString("controller.recovery.provider", r.provider),
      phase: expectOneOf("controller.recovery.phase", r.phase, ["cooldown", "failback"] as const),
      detectedAt: expectNumber("controller.recovery.detectedAt", r.detectedAt),
      cooldownUntil: expectNumber("controller.recovery.cooldownUntil", r.cooldownUntil),
    },
    shift: sh && {
      reason: expectOneOf("controller.shift.reason", sh.reason, SHIFT_REASONS),
      from: expectNullableString("controller.shift.from", sh.from),
    },
    noEligibleSince: expectNullableNumber("controller.noEligibleSince", o.noEligibleSince),
    // States stored before this field existed restore with nobody held: at worst one opening is reported again.
    breakerHeld: o.breakerHeld === undefined ? [] : expectStringArray("controller.breakerHeld", o.breakerHeld),
  };
}
