import type { TShares } from "../types";
import {
  advanceRecovery,
  applyExclusions,
  challengeLeader,
  closeTick,
  holdWithoutEligible,
  moveTowardTarget,
  openTick,
  reportMovement,
} from "./controller-tick";
import { SHIFT_REASONS, type TControllerConfig, type TControllerInput, type TControllerResult, type TControllerState } from "./controller-types";
import {
  expectArray,
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
import type { TRegainGap } from "./controller-types";

/**
 * The traffic-share controller for one (operation, region): the only place shares move (the
 * dampening and recovery controls of the paper's sections 4.6, 4.10 and 4.11, docs/references.md). Each tick:
 *
 * 1. Exclusion. A hard gate excludes at decide time, per request: decide spreads an ineligible
 *    provider's share over the eligible ones, so no real request reaches it from that moment on.
 *    The controller's planned shares then follow one of two rules:
 *    - A provider that failed any hard gate other than the circuit breaker alone (quota, region,
 *      compliance, credentials, kill, freshness under `exclude`, or the breaker together with one
 *      of those) loses its planned share at once, spread over the eligible providers in
 *      proportion to their shares (`hard_exclusion`). Those signals are unambiguous and do not
 *      heal by themselves, so they are not rate-limited (the paper's section 4.11, docs/references.md).
 *    - A provider excluded only by its circuit breaker (failed gates exactly
 *      `circuit_breaker_closed`) keeps a planned share: it is treated like a provider traffic was
 *      moved away from, its planned share falls at the capped rate (step 4) and stops at the
 *      probe floor (`circuit_open_shift_to_secondary`, capped when the cap binds). A breaker
 *      heals by itself: when it half-opens, the gate passes for its probe slots and that floor
 *      is what carries the probe calls (the paper's Table 12 (docs/references.md): "circuit state and traffic caps limit
 *      further movement … probe traffic later detects recovery, a half-open state validates
 *      health"). Served traffic still drops at once: the planned share is not the served one
 *      while the breaker is open.
 *    An excluded leader is displaced and the best eligible provider by score takes over at once.
 * 2. Leadership. The incumbent leader stays unless a challenger's score beats it by
 *    `hysteresis_score_margin`, and only when the incumbent's score rests on at least
 *    `min_sample_size` samples: a decline needs evidence before traffic moves. A challenger on
 *    `min_sample_size` samples counts its lead on a rate score only when its failure rate is
 *    proven lower (significance.ts), not on the rate index's benefit of the doubt. A former leader
 *    displaced by degradation or exclusion returns only through recovery (regain-margin.ts): a
 *    former primary (ranked above the leader) once it scores at least the leader at full sample
 *    confidence (recovery_detected, cooldown_started), probed at its recovery share through
 *    `primary_recovery_cooldown_seconds` (probe_exploration_increase) until its own samples prove
 *    it; any other by leading by the margin on `min_sample_size` samples and keeping the lead
 *    through the cooldown. Then it takes traffic back at the capped rate (failback_step …
 *    full_failback_completed); while a former primary fails back, a challenger displaces it only
 *    on what would end its cooldown (more than the margin behind at full sample confidence, or its
 *    own calls proven failing), not on the confidence its refilling window still lacks. When the
 *    leader itself is excluded
 *    the best eligible provider by score takes over at once, displaced or not: the alternative
 *    is an ineligible leader.
 * 3. Target. The leader gets everything except a probe floor of `primary_probe_share` on each
 *    provider traffic was moved away from that is eligible or excluded only by its breaker, so
 *    the controller keeps observing it; that is what lets recovery be detected at all (the
 *    paper's section 4.10 and Table 6, docs/references.md). A former primary in its cooldown gets its recovery probe share instead.
 * 4. Movement. Shares move toward the target by at most `max_traffic_shift_per_minute`,
 *    pro-rated by the time since the previous tick and never more than the cap over any 60 s
 *    (the moves of the last minute are kept in the state), counted as the total share that
 *    changes hands (so no single provider moves more than that either).
 *
 * Shares are ≥ 0 and sum to 1. With nobody eligible the last shares are kept (decide answers
 * with the fallback policy) and one `no_eligible_provider` event marks the start of that period.
 * The phases live in controller-tick.ts, the data shapes in controller-types.ts.
 */

export type {
  TControllerCandidate,
  TControllerConfig,
  TControllerEvent,
  TControllerEventType,
  TControllerEvidence,
  TControllerInput,
  TControllerResult,
  TControllerSafety,
  TControllerState,
  TRecovery,
} from "./controller-types";
export { CONTROLLER_EVENT_TYPES } from "./controller-types";

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
  if (config.recovery_probe_share !== undefined) checkNumber("recovery_probe_share", config.recovery_probe_share, closed(0), closed(0.5));
  if (config.metric_window_minutes !== undefined) checkNumber("metric_window_minutes", config.metric_window_minutes, open(0), null);
  if (safety.primary_probe_share * (priority.length - 1) >= 1) {
    throw new RangeError(
      `primary_probe_share must leave the leader a share: with ${priority.length} providers it must be < ${1 / (priority.length - 1)}, got ${safety.primary_probe_share}`,
    );
  }
  return config;
}

/**
 * A fresh (operation, region): all traffic on the static primary, and every secondary on the
 * probe floor (`primary_probe_share`), which the first tick gives it within the shift cap. A
 * secondary with no traffic has no metrics and scores on safe defaults, so it could never
 * out-score a degrading primary by evidence; the floor keeps that evidence flowing, in
 * production and in the replay alike.
 */
export function createControllerState(operation: string, region: string | null, config: TControllerConfig, now: number): TControllerState {
  const { priority, safety } = resolveControllerConfig(config);
  checkTime("now", now);
  const shares: TShares = {};
  priority.forEach((p, i) => (shares[p] = i === 0 ? 1 : 0));
  return {
    operation,
    region,
    shares,
    leader: priority[0] ?? null,
    lastTickAt: now,
    probeFloor: safety.primary_probe_share > 0 ? priority.slice(1) : [],
    displaced: [],
    recovery: null,
    shift: null,
    noEligibleSince: null,
    breakerHeld: [],
    regain: [],
    recentMoves: [],
  };
}

export function stepController(state: TControllerState, input: TControllerInput, config: TControllerConfig, now: number): TControllerResult {
  const cfg = resolveControllerConfig(config);
  checkTime("now", now);
  const tick = openTick(state, input, cfg, now);
  if (tick.eligible.length === 0) return holdWithoutEligible(tick);
  applyExclusions(tick);
  challengeLeader(tick);
  advanceRecovery(tick);
  moveTowardTarget(tick);
  reportMovement(tick);
  return closeTick(tick);
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
    probeFloor: restoreProbeFloor(o),
    displaced: expectStringArray("controller.displaced", o.displaced),
    recovery: r && {
      provider: expectString("controller.recovery.provider", r.provider),
      phase: expectOneOf("controller.recovery.phase", r.phase, ["cooldown", "failback"] as const),
      detectedAt: expectNumber("controller.recovery.detectedAt", r.detectedAt),
      cooldownUntil: expectNumber("controller.recovery.cooldownUntil", r.cooldownUntil),
      ...(r.probeShare === undefined ? {} : { probeShare: expectNumber("controller.recovery.probeShare", r.probeShare) }),
    },
    shift: sh && {
      reason: expectOneOf("controller.shift.reason", sh.reason, SHIFT_REASONS),
      from: expectNullableString("controller.shift.from", sh.from),
    },
    noEligibleSince: expectNullableNumber("controller.noEligibleSince", o.noEligibleSince),
    // States stored before this field existed restore with nobody held: at worst one opening is reported again.
    breakerHeld: o.breakerHeld === undefined ? [] : expectStringArray("controller.breakerHeld", o.breakerHeld),
    // Explanation only, recomputed every tick: a state stored before it existed restores without it.
    regain: o.regain === undefined ? [] : expectArray("controller.regain", o.regain).map((g, i) => restoreRegainGap(`controller.regain.${i}`, g)),
    // States stored before it existed count no earlier moves: at most one minute's cap more, once.
    recentMoves:
      o.recentMoves === undefined
        ? []
        : expectArray("controller.recentMoves", o.recentMoves).map((m, i) => {
            const move = expectObject(`controller.recentMoves.${i}`, m);
            return { at: expectNumber(`controller.recentMoves.${i}.at`, move.at), moved: expectNumber(`controller.recentMoves.${i}.moved`, move.moved) };
          }),
  };
}

/**
 * States stored before `regain` existed were created with an empty probe floor; they restore with
 * every non-leader on it, so a running deployment gets the probe-floor start too rather than only
 * (operation, region)s created after the upgrade.
 */
function restoreProbeFloor(o: Record<string, unknown>): string[] {
  const floor = expectStringArray("controller.probeFloor", o.probeFloor);
  if (o.regain !== undefined) return floor;
  const leader = expectNullableString("controller.leader", o.leader);
  const others = Object.keys(expectNumberRecord("controller.shares", o.shares)).filter((p) => p !== leader && !floor.includes(p));
  return [...floor, ...others];
}

function restoreRegainGap(path: string, json: unknown): TRegainGap {
  const g = expectObject(path, json);
  return {
    provider: expectString(`${path}.provider`, g.provider),
    leader: expectString(`${path}.leader`, g.leader),
    score: expectNumber(`${path}.score`, g.score),
    leaderScore: expectNumber(`${path}.leaderScore`, g.leaderScore),
    margin: expectNumber(`${path}.margin`, g.margin),
    needs: expectNumber(`${path}.needs`, g.needs),
    trusted: g.trusted === true,
    // The fields below came with recovery at any volume; a gap stored before them restores without them.
    ...(g.samples === undefined ? {} : { samples: expectNumber(`${path}.samples`, g.samples) }),
    ...(g.samplesNeeded === undefined ? {} : { samplesNeeded: expectNumber(`${path}.samplesNeeded`, g.samplesNeeded) }),
    ...(g.probeShare === undefined ? {} : { probeShare: expectNumber(`${path}.probeShare`, g.probeShare) }),
    ...(g.callsPerMinute === undefined ? {} : { callsPerMinute: expectNullableNumber(`${path}.callsPerMinute`, g.callsPerMinute) }),
    ...(g.phase === undefined ? {} : { phase: expectOneOf(`${path}.phase`, g.phase, ["waiting", "cooldown"] as const) }),
    ...(g.reconsiderAt === undefined ? {} : { reconsiderAt: expectNullableNumber(`${path}.reconsiderAt`, g.reconsiderAt) }),
  };
}
