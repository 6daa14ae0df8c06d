import type { TShares } from "../types";
import {
  fullScore,
  leadNeeded,
  ownSamples,
  provenFailing,
  provenStillFailing,
  RECOVERY_FAILURE_BOUND,
  recoveryProbeShare,
  recoveryProven,
  regainGaps,
} from "./regain-margin";
import type {
  TControllerCandidate,
  TControllerConfig,
  TControllerEvent,
  TControllerEventType,
  TControllerEvidence,
  TControllerInput,
  TControllerResult,
  TControllerState,
  TRecovery,
  TShareMove,
  TShiftReason,
} from "./controller-types";
import { unprovenRateLeads, type TUnprovenLead } from "./significance";

/**
 * The phases of one controller tick (controller.ts describes the steps). They are module-level
 * functions over one TTick, the tick's working state, so a tick builds one object rather than a
 * closure per helper.
 */

const EPS = 1e-9;
const MINUTE_MS = 60_000;

export type TTick = {
  state: TControllerState;
  cfg: TControllerConfig;
  now: number;
  cap: number;
  probe: number;
  cooldownMs: number;
  /** The share a provider whose recovery is detected this tick is probed at during its cooldown (regain-margin.ts). */
  recoveryShare: number;
  byProvider: Map<string, TControllerCandidate>;
  /** The priority list, then providers dropped from it that still hold shares. */
  universe: string[];
  evidence: TControllerEvidence[];
  eligible: string[];
  shares: TShares;
  leader: string | null;
  floor: Set<string>;
  displaced: Set<string>;
  recovery: TRecovery | null;
  shift: { reason: TShiftReason; from: string | null } | null;
  events: TControllerEvent[];
  /** A breaker-open leader displaced this tick (step 1). */
  excludedLeaderFrom: string | undefined;
  /** The leader before a challenge or failback changed it this tick (steps 2 and 3). */
  leaderChangedFrom: string | null | undefined;
  /** Step 2's comparison, quoted by the score_decay_shift event. */
  incumbent: string;
  incumbentScore: number | null;
  challengerScore: number | null;
  /** The challenger's rate leads its samples do not prove, not counted in step 2's comparison. */
  unproven: TUnprovenLead[];
  /** Step 4's movement, read by the events that report it. */
  before: TShares;
  target: TShares;
  dtMs: number;
  budget: number;
  wanted: number;
  moved: number;
};

export function openTick(state: TControllerState, input: TControllerInput, cfg: TControllerConfig, now: number): TTick {
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
  const evidence: TControllerEvidence[] = universe.map((p) => {
    const c = byProvider.get(p);
    return {
      provider: p,
      eligible: c?.eligible === true,
      score: c?.score ?? null,
      sampleCount: c?.sampleCount ?? 0,
      regional: c?.regional ? { ...c.regional } : null,
      confidencePoints: c?.confidencePoints ?? 0,
      failedGates: c ? [...(c.failedGates ?? [])] : ["not_in_priority"],
      metrics: { ...(c?.metrics ?? {}) },
    };
  });
  const shares: TShares = {};
  for (const p of universe) shares[p] = state.shares[p] ?? 0;
  const t: TTick = {
    state,
    cfg,
    now,
    cap: cfg.safety.max_traffic_shift_per_minute,
    probe: cfg.safety.primary_probe_share,
    cooldownMs: cfg.safety.primary_recovery_cooldown_seconds * 1000,
    recoveryShare: cfg.safety.primary_probe_share,
    byProvider,
    universe,
    evidence,
    eligible: [],
    shares,
    leader: state.leader,
    // A provider new to this state (added to the priority list later) starts on the floor, as every secondary of a fresh state does.
    floor: new Set([...state.probeFloor, ...cfg.priority.filter((p) => !(p in state.shares) && p !== state.leader)]),
    displaced: new Set(state.displaced),
    recovery: state.recovery,
    shift: state.shift,
    events: [],
    excludedLeaderFrom: undefined,
    leaderChangedFrom: undefined,
    incumbent: "",
    incumbentScore: null,
    challengerScore: null,
    unproven: [],
    before: shares,
    target: {},
    dtMs: 0,
    budget: 0,
    wanted: 0,
    moved: 0,
  };
  t.eligible = universe.filter((p) => isEligible(t, p));
  return t;
}

/** The share of the provider in cooldown: fixed at detection, so it does not jitter with every tick's volume. */
function provingShare(t: TTick): number {
  return t.recovery?.phase === "cooldown" ? (t.recovery.probeShare ?? t.probe) : t.probe;
}

/** The capped moves within the minute before `now` (a window is (now − 60 s, now]). */
function recentMoves(state: TControllerState, now: number): TShareMove[] {
  return (state.recentMoves ?? []).filter((m) => m.at > now - MINUTE_MS && m.at <= now);
}

function isEligible(t: TTick, p: string): boolean {
  return t.byProvider.get(p)?.eligible === true;
}

function breakerOnly(t: TTick, p: string): boolean {
  const c = t.byProvider.get(p);
  return c !== undefined && !c.eligible && c.failedGates?.length === 1 && c.failedGates[0] === "circuit_breaker_closed";
}

/** Eligible, or excluded only by a breaker that will half-open: both keep their probe floor. */
function keepsFloor(t: TTick, p: string): boolean {
  return isEligible(t, p) || breakerOnly(t, p);
}

function scoreOf(t: TTick, p: string | null): number | null {
  return p === null ? null : (t.byProvider.get(p)?.score ?? null);
}

function trusted(t: TTick, p: string): boolean {
  return (t.byProvider.get(p)?.sampleCount ?? 0) >= t.cfg.min_sample_size;
}

function evidenceOf(t: TTick, p: string): TControllerEvidence | undefined {
  return t.evidence.find((e) => e.provider === p);
}

/** p ranks above the leader in the priority order: a former primary, which recovers by regain-margin.ts. */
function outranks(t: TTick, p: string, leader: string): boolean {
  return leadNeeded(t.universe, p, leader, t.cfg.hysteresis_score_margin) === 0;
}

/**
 * Whether a displaced p looks recovered against the leader. A former primary: at full sample
 * confidence it scores at least the leader and its own calls do not prove it failing. Any other:
 * it leads by the hysteresis margin on min_sample_size samples, as an ordinary challenger must.
 */
function looksRecovered(t: TTick, p: string, leader: string): boolean {
  const e = evidenceOf(t, p);
  if (!isEligible(t, p) || e === undefined || e.score === null) return false;
  const ls = scoreOf(t, leader);
  if (!outranks(t, p, leader)) return trusted(t, p) && (ls === null || e.score - ls >= t.cfg.hysteresis_score_margin);
  const lf = fullScore(evidenceOf(t, leader));
  return !provenFailing(e) && (lf === null || (fullScore(e) as number) >= lf);
}

/** Why a recovery in cooldown is given up, or null while it holds: the hysteresis band below the detection threshold. */
function recoveryLost(t: TTick, p: string, leader: string): string | null {
  const e = evidenceOf(t, p);
  if (!isEligible(t, p) || e === undefined || e.score === null) return `${p} is no longer eligible or scored`;
  if (!outranks(t, p, leader)) {
    const ls = scoreOf(t, leader);
    return ls !== null && e.score < ls ? `${p} no longer leads ${leader} (score ${fmt(e.score)} vs ${fmt(ls)})` : null;
  }
  if (provenStillFailing(e)) return `${p}'s own calls fail at more than ${pct(RECOVERY_FAILURE_BOUND)} (${e.regional?.failures} of ${e.regional?.samples})`;
  const lf = fullScore(evidenceOf(t, leader));
  const pf = fullScore(e) as number;
  const margin = t.cfg.hysteresis_score_margin;
  return lf !== null && pf < lf - margin
    ? `${p} scores ${fmt(pf)} vs ${leader} ${fmt(lf)} at full sample confidence, more than the margin ${margin} behind`
    : null;
}

/** Best score first; ties (and the unscored) in universe order. */
function rank(t: TTick, list: readonly string[]): string[] {
  return [...list].sort((a, b) => (scoreOf(t, b) ?? -Infinity) - (scoreOf(t, a) ?? -Infinity) || t.universe.indexOf(a) - t.universe.indexOf(b));
}

function emit(
  t: TTick,
  type: TControllerEventType,
  provider: string | null,
  from: TShares,
  to: TShares,
  detail: string,
  leaderFrom: string | null = t.leader,
  capped = false,
): void {
  t.events.push({
    at: t.now,
    operation: t.state.operation,
    region: t.state.region,
    type,
    provider,
    leader: { from: leaderFrom, to: t.leader },
    shares: { from: { ...from }, to: { ...to } },
    capped,
    detail,
    evidence: t.evidence,
  });
}

function breakerOpenDetail(t: TTick, p: string): string {
  return `${p} failed only circuit_breaker_closed: decide sends it no request while the breaker is open; its planned share falls at most ${pct(t.cap)}/min to the ${pct(t.probe)} probe floor that carries the half-open probes`;
}

function fmt(n: number | null): string {
  return n === null ? "none" : (Math.round(n * 100) / 100).toString();
}

function pct(n: number): string {
  return `${(Math.round(n * 1000) / 10).toString()}%`;
}

function promote(t: TTick, p: string): void {
  t.leader = p;
  t.displaced.delete(p);
  t.floor.delete(p);
}

function abortRecovery(t: TTick, why: string): void {
  if (t.recovery === null) return;
  emit(t, "recovery_aborted", t.recovery.provider, t.shares, t.shares, why);
  t.recovery = null;
}

/** Nobody eligible: shares are kept and the fallback policy answers; the period's start is reported once. */
export function holdWithoutEligible(t: TTick): TControllerResult {
  const state = t.state;
  if (state.noEligibleSince === null) {
    emit(t, "no_eligible_provider", null, t.shares, t.shares, "every provider failed a hard gate; shares kept, fallback policy answers");
  }
  return {
    state: {
      ...state,
      shares: t.shares,
      lastTickAt: Math.max(state.lastTickAt, t.now),
      noEligibleSince: state.noEligibleSince ?? t.now,
      breakerHeld: t.universe.filter((p) => breakerOnly(t, p)),
    },
    shares: { ...t.shares },
    events: t.events,
  };
}

/** Step 1: other hard gates exclude at once; a breaker alone through the capped movement of step 4. */
export function applyExclusions(t: TTick): void {
  for (const p of t.universe) {
    const share = t.shares[p] ?? 0;
    if (isEligible(t, p) || share <= 0) continue;
    if (breakerOnly(t, p)) {
      t.floor.add(p);
      if (t.recovery?.provider === p) abortRecovery(t, `${p}'s circuit breaker opened during recovery`);
      if (p === t.leader || share > t.probe + EPS) t.shift = { reason: "circuit_open_shift_to_secondary", from: p };
      continue;
    }
    excludeAtOnce(t, p, share);
  }
  replaceIneligibleLeader(t);
}

/** A hard exclusion: p's share goes to the eligible providers in proportion to theirs, the remainder to the best. */
function excludeAtOnce(t: TTick, p: string, share: number): void {
  const { eligible, universe } = t;
  const shares = t.shares;
  const eligibleMass = eligible.reduce((sum, q) => sum + (shares[q] ?? 0), 0);
  const heir = rank(t, eligible)[0] as string;
  const next: TShares = { ...shares, [p]: 0 };
  for (const q of eligible) {
    // Ratio first: with denormal shares the product would underflow to 0 and lose mass.
    const gain = eligibleMass > 0 ? share * ((shares[q] ?? 0) / eligibleMass) : q === heir ? share : 0;
    next[q] = (shares[q] ?? 0) + gain;
  }
  next[heir] = Math.max(0, (next[heir] ?? 0) + 1 - universe.reduce((sum, q) => sum + (next[q] ?? 0), 0));
  t.shares = next;
  t.floor.add(p);
  const leaderFrom = t.leader;
  if (p === t.leader) {
    t.displaced.add(p);
    promote(t, heir);
    t.shift = { reason: "exclusion_rebalance", from: p };
  }
  if (t.recovery?.provider === p) abortRecovery(t, `${p} failed a hard gate during recovery`);
  if (t.recovery?.provider === t.leader) t.recovery = null;
  const gates = t.byProvider.get(p)?.failedGates ?? (t.byProvider.has(p) ? [] : ["not_in_priority"]);
  emit(
    t,
    "hard_exclusion",
    p,
    shares,
    t.shares,
    `${p} failed ${gates.length > 0 ? gates.join(", ") : "a hard gate"}; its ${pct(share)} moved to eligible providers at once`,
    leaderFrom,
  );
}

/** An excluded (or missing) leader is displaced and the best eligible provider takes over at once. */
function replaceIneligibleLeader(t: TTick): void {
  if (t.leader !== null && isEligible(t, t.leader)) return;
  const previous = t.leader;
  if (previous !== null) t.displaced.add(previous);
  promote(t, rank(t, t.eligible)[0] as string);
  if (previous !== null && breakerOnly(t, previous)) {
    t.floor.add(previous);
    if (t.recovery?.provider === t.leader) t.recovery = null;
    t.excludedLeaderFrom = previous;
    t.shift = { reason: "circuit_open_shift_to_secondary", from: previous };
  } else {
    t.shift = { reason: "exclusion_rebalance", from: previous };
  }
}

/**
 * Step 2: a challenger that beats a well-sampled incumbent by the margin takes the lead. A
 * challenger on min_sample_size samples counts its lead on a rate score only when its failure rate
 * is proven lower (significance.ts): the lower bound's benefit of the doubt is not evidence against
 * the incumbent, and confidence_from_sample no longer offsets it.
 */
export function challengeLeader(t: TTick): void {
  const incumbent = t.leader as string;
  const incumbentScore = scoreOf(t, incumbent);
  const challenger = rank(
    t,
    t.eligible.filter((p) => p !== incumbent && !t.displaced.has(p) && scoreOf(t, p) !== null),
  )[0];
  const challengerScore = challenger === undefined ? null : scoreOf(t, challenger);
  t.incumbent = incumbent;
  t.incumbentScore = incumbentScore;
  t.challengerScore = challengerScore;
  if (challenger === undefined || challengerScore === null || incumbentScore === null) return;
  // A former primary failing back proved its recovery at full sample confidence and is refilling
  // its window: the confidence points it lacks meanwhile are no decline. It is held to what gave
  // the recovery up in its cooldown (recoveryLost), not demoted on its still-thin score.
  const failingBack = t.recovery?.phase === "failback" && t.recovery.provider === incumbent;
  if (failingBack && outranks(t, incumbent, challenger)) {
    const lost = recoveryLost(t, incumbent, challenger);
    if (lost === null) return;
    abortRecovery(t, `${lost} during failback`);
  } else {
    if (!trusted(t, incumbent)) return;
    t.unproven = trusted(t, challenger) ? unprovenRateLeads(t.byProvider.get(challenger), t.byProvider.get(incumbent)) : [];
    const proven = challengerScore - t.unproven.reduce((sum, u) => sum + u.points, 0);
    if (proven - incumbentScore < t.cfg.hysteresis_score_margin) return;
    if (failingBack) abortRecovery(t, `${incumbent} degraded again during failback`);
  }
  t.displaced.add(incumbent);
  t.floor.add(incumbent);
  promote(t, challenger);
  t.leaderChangedFrom = incumbent;
  t.shift = { reason: "score_decay_shift", from: incumbent };
}

/**
 * Step 3: recovery of a displaced leader (regain-margin.ts). It looks recovered: detection, and the
 * cooldown begins, a former primary probed at its recovery share. The recovery is given up when it
 * falls a hysteresis margin below that (what would demote a leader), not on every noisy tick;
 * failback starts once the cooldown has passed and a former primary's own samples prove it.
 */
export function advanceRecovery(t: TTick): void {
  const current = t.leader as string;
  if (t.recovery?.phase === "cooldown") {
    const lost = recoveryLost(t, t.recovery.provider, current);
    if (lost !== null) abortRecovery(t, `${lost} during cooldown`);
  }
  if (t.recovery === null && t.leaderChangedFrom === undefined) detectRecovery(t, current);
  const recovery = t.recovery as TRecovery | null;
  if (
    recovery?.phase === "cooldown" &&
    t.leaderChangedFrom === undefined &&
    t.now >= recovery.cooldownUntil &&
    (!outranks(t, recovery.provider, current) || recoveryProven(evidenceOf(t, recovery.provider)!, t.cfg.min_sample_size))
  ) {
    promote(t, recovery.provider);
    t.floor.add(current);
    t.recovery = { ...recovery, phase: "failback" };
    t.leaderChangedFrom = current;
    t.shift = { reason: "failback_step", from: current };
  }
}

/** The best displaced provider that looks recovered against `current` starts its cooldown. */
function detectRecovery(t: TTick, current: string): void {
  const { cfg, now } = t;
  const candidate = rank(
    t,
    [...t.displaced].filter((p) => looksRecovered(t, p, current)),
  )[0];
  if (candidate === undefined) return;
  const e = evidenceOf(t, candidate)!;
  const primary = outranks(t, candidate, current);
  // The leader keeps at least half of what the floors leave it, however many providers there are.
  const probe = cfg.safety.primary_probe_share;
  t.recoveryShare = primary ? Math.min(recoveryProbeShare(cfg, t.evidence, e), probe + (1 - probe * (t.universe.length - 1)) / 2) : probe;
  t.recovery = { provider: candidate, phase: "cooldown", detectedAt: now, cooldownUntil: now + t.cooldownMs, probeShare: t.recoveryShare };
  const why = primary
    ? `${candidate} scores ${fmt(fullScore(e))} vs leader ${current} ${fmt(fullScore(evidenceOf(t, current)) ?? null)} at full sample confidence (${candidate} ranks above ${current}: no lead needed) on ${ownSamples(e)} samples of its own`
    : `${candidate} scores ${fmt(e.score)} vs leader ${current} ${fmt(scoreOf(t, current))} (margin ${cfg.hysteresis_score_margin}) on ${e.sampleCount} samples (min ${cfg.min_sample_size})`;
  emit(t, "recovery_detected", candidate, t.shares, t.shares, why);
  const proof = primary ? `needs samples that prove the recovery (it is probed at ${pct(t.recoveryShare)} meanwhile) and ` : "";
  emit(
    t,
    "cooldown_started",
    candidate,
    t.shares,
    t.shares,
    `failback to ${candidate} ${proof}waits ${cfg.safety.primary_recovery_cooldown_seconds} s, until ${new Date(now + t.cooldownMs).toISOString()}`,
  );
}

/** Step 4: the target (leader all but the probe floors) and the capped movement toward it. */
export function moveTowardTarget(t: TTick): void {
  const { universe, probe } = t;
  const head = t.leader as string;
  const shares = t.shares;
  for (const p of universe) if (p !== head && keepsFloor(t, p) && (shares[p] ?? 0) > 0) t.floor.add(p);
  const target: TShares = {};
  let floors = 0;
  const proving = t.recovery?.phase === "cooldown" ? t.recovery.provider : null;
  for (const p of universe) {
    target[p] = p !== head && keepsFloor(t, p) && t.floor.has(p) ? (p === proving && isEligible(t, p) ? provingShare(t) : probe) : 0;
    floors += target[p] ?? 0;
  }
  target[head] = 1 - floors;

  const dtMs = Math.max(0, t.now - t.state.lastTickAt);
  // The cap holds over any 60 s window: this tick may move what the moves of the last minute left.
  const recent = recentMoves(t.state, t.now).reduce((sum, m) => sum + m.moved, 0);
  const budget = Math.max(0, Math.min((t.cap * Math.min(dtMs, MINUTE_MS)) / MINUTE_MS, t.cap - recent));
  let wanted = 0;
  for (const p of universe) wanted += Math.max(0, (shares[p] ?? 0) - (target[p] ?? 0));
  const moved = Math.min(wanted, budget);
  const fraction = wanted > 0 ? moved / wanted : 0;
  const after: TShares = {};
  for (const p of universe) {
    const s = shares[p] ?? 0;
    const v0 = target[p] ?? 0;
    const v = fraction >= 1 ? v0 : s + (v0 - s) * fraction;
    after[p] = Math.abs(v - v0) <= EPS ? v0 : Math.max(0, v);
  }
  // Keep the sum exactly 1 despite rounding; the leader absorbs the residue.
  const others = universe.reduce((sum, p) => (p === head ? sum : sum + (after[p] ?? 0)), 0);
  after[head] = Math.max(0, 1 - others);
  t.before = shares;
  t.shares = after;
  t.target = target;
  t.dtMs = dtMs;
  t.budget = budget;
  t.wanted = wanted;
  t.moved = moved;
}

/** The events of step 4's movement, breaker openings not yet announced, and probe floors reached. */
export function reportMovement(t: TTick): void {
  const { universe, probe, before, target } = t;
  const after = t.shares;
  const head = t.leader as string;
  const reached = universe.every((p) => Math.abs((after[p] ?? 0) - (target[p] ?? 0)) <= EPS);
  const announced = reportShift(t, reached);
  const wasHeld = new Set(t.state.breakerHeld ?? []);
  for (const p of universe) {
    if (!breakerOnly(t, p) || wasHeld.has(p) || announced === p) continue;
    emit(t, "circuit_open_shift_to_secondary", p, after, after, `${breakerOpenDetail(t, p)}; its planned share stays at ${pct(after[p] ?? 0)}`);
  }
  for (const p of universe) {
    const b = before[p] ?? 0;
    const a = after[p] ?? 0;
    if (p !== head && target[p] === probe && probe > 0 && b > probe + EPS && a <= probe + EPS) {
      const why = breakerOnly(t, p) ? "its half-open probes have traffic to carry" : "its samples keep coming";
      emit(t, "probe_floor_held", p, after, after, `${p} kept at the ${pct(probe)} probe floor so ${why}`);
    }
  }
  if (reached) {
    t.shift = null;
    if (t.recovery?.phase === "failback") t.recovery = null;
  }
}

/**
 * The one event naming why shares moved this tick (or why the leader changed), if any. Returns the
 * breaker-open provider whose opening it announced, or null.
 */
function reportShift(t: TTick, reached: boolean): string | null {
  const { universe, before, target, budget, moved, wanted, shift, recovery } = t;
  const after = t.shares;
  const head = t.leader as string;
  const changed = universe.some((p) => Math.abs((after[p] ?? 0) - (before[p] ?? 0)) > EPS);
  const capped = wanted > budget + EPS;
  const leaderMovedFrom = t.leaderChangedFrom ?? t.excludedLeaderFrom;
  if (!changed && leaderMovedFrom === undefined) return null;
  const leaderGained = (after[head] ?? 0) > (before[head] ?? 0) + EPS || leaderMovedFrom !== undefined;
  const summary = `${head} ${pct(before[head] ?? 0)} → ${pct(after[head] ?? 0)} (target ${pct(target[head] ?? 0)}, moved ${pct(moved)} of ${pct(wanted)} wanted, cap ${pct(budget)} for ${t.dtMs / 1000} s)`;
  const from = leaderMovedFrom === undefined ? head : leaderMovedFrom;
  if (recovery?.phase === "failback" && recovery.provider === head && leaderGained) {
    emit(t, reached ? "full_failback_completed" : "failback_step", head, before, after, `failback: ${summary}`, from, capped);
  } else if (leaderGained && shift !== null) {
    let why = "";
    let announced: string | null = null;
    if (shift.reason === "score_decay_shift" && t.leaderChangedFrom !== undefined) {
      const off = t.unproven.reduce((sum, u) => sum + u.points, 0);
      const counted = off > 0 ? ` (${fmt((t.challengerScore ?? 0) - off)} counted: ${t.unproven.map((u) => u.score).join(", ")} lead not proven)` : "";
      why = `${head} scores ${fmt(t.challengerScore)}${counted} vs ${t.incumbent} ${fmt(t.incumbentScore)} (margin ${t.cfg.hysteresis_score_margin}); `;
    } else if (shift.reason === "circuit_open_shift_to_secondary" && shift.from !== null) {
      why = `${breakerOpenDetail(t, shift.from)}; `;
      announced = shift.from;
    }
    emit(t, shift.reason === "failback_step" ? "rebalance" : shift.reason, shift.from, before, after, `${why}${summary}`, from, capped);
    return announced;
  } else if (leaderGained) {
    emit(t, "rebalance", head, before, after, summary, from, capped);
  } else {
    const gainer = universe.find((p) => (after[p] ?? 0) > (before[p] ?? 0) + EPS) ?? null;
    if (gainer !== null && recovery?.phase === "cooldown" && recovery.provider === gainer) {
      const why = `${gainer} looks recovered: probed at ${pct(provingShare(t))} (${pct(before[gainer] ?? 0)} → ${pct(after[gainer] ?? 0)}) until its samples prove it`;
      emit(t, "probe_exploration_increase", gainer, before, after, why, from, capped);
    } else {
      emit(t, "probe_floor_restored", gainer, before, after, `probe floor ${pct(t.probe)} restored for ${gainer ?? "providers"}`, from, capped);
    }
  }
  return null;
}

/** The tick's result: the new state and a copy of its shares. */
export function closeTick(t: TTick): TControllerResult {
  const { state, universe, shares } = t;
  return {
    state: {
      operation: state.operation,
      region: state.region,
      shares: { ...shares },
      leader: t.leader,
      // A tick stamped earlier than the last one (clock skew between instances) must not widen the next budget.
      lastTickAt: Math.max(state.lastTickAt, t.now),
      probeFloor: universe.filter((p) => t.floor.has(p)),
      displaced: universe.filter((p) => t.displaced.has(p)),
      recovery: t.recovery,
      shift: t.shift,
      noEligibleSince: null,
      breakerHeld: universe.filter((p) => breakerOnly(t, p)),
      regain: regainGaps(
        t.cfg,
        universe,
        t.leader,
        universe.filter((p) => t.displaced.has(p)),
        t.recovery,
        t.evidence,
        (p) => (t.recovery?.phase === "cooldown" && t.recovery.provider === p ? provingShare(t) : t.probe),
      ),
      recentMoves: t.moved > EPS ? [...recentMoves(state, t.now), { at: t.now, moved: t.moved }] : recentMoves(state, t.now),
    },
    shares: { ...shares },
    events: t.events,
  };
}
