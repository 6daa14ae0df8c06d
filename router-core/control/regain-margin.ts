import { failureLowerBound } from "../scoring/indices";
import type { TControllerConfig, TControllerEvidence, TRecovery, TRegainGap } from "./controller-types";

/**
 * How a displaced former primary earns its traffic back at any volume (router-core README,
 * "Recovery at any volume"). This applies to a displaced provider that ranks above the leader in
 * the priority order; one the leader outranks is an ordinary challenger and needs the hysteresis
 * margin on min_sample_size samples, as before. Three tests, each with its own job:
 *
 * - It looks recovered: at full sample confidence it scores at least the leader (the priority
 *   order breaks ties, and the hysteresis band is the margin between this and the demotion
 *   threshold), and its own calls do not prove a failure rate above RECOVERY_FAILURE_BOUND. Thin
 *   samples are judged by the proof, not by confidence_from_sample.
 * - While it looks recovered it is probed harder (`recoveryProbeShare`): enough for its window to
 *   hold `min_sample_size` samples, at most `recovery_probe_share`, never below the probe floor.
 * - Its evidence proves it: `min_sample_size` samples behind its score, as before, or fewer of its
 *   own in the region whose failure rate's one-sided 95% upper bound is at most RECOVERY_FAILURE_BOUND. A provider still
 *   failing at 20% cannot pass (one failure in a few calls already drops its completion index to
 *   0, so it stops looking recovered), and a healthy one passes on 52 clean calls instead of 200.
 */

/** The most a recovering provider is probed at when the factor list's config does not say. */
export const DEFAULT_RECOVERY_PROBE_SHARE = 0.25;
/** A recovery is proven when the failure rate's 95% upper bound is at most this. */
export const RECOVERY_FAILURE_BOUND = 0.05;
const Z_UPPER = 1.6448536;

/** Wilson upper confidence bound (one-sided 95%) of a failure rate: failures in n samples. */
export function failureUpperBound(failures: number, n: number): number {
  if (!(n > 0)) return 1;
  const f = Math.min(1, Math.max(0, failures / n));
  const z2n = (Z_UPPER * Z_UPPER) / n;
  const upper = (f + z2n / 2 + Z_UPPER * Math.sqrt((f * (1 - f)) / n + z2n / (4 * n))) / (1 + z2n);
  return upper < 1 ? upper : 1;
}

/** Samples (at the same failure count) that prove a recovery: the fewest whose upper bound passes, at most min_sample_size. */
export function samplesToProve(failures: number | null, minSampleSize: number): number {
  if (failures === null) return minSampleSize;
  for (let n = Math.max(1, failures); n < minSampleSize; n++) if (failureUpperBound(failures, n) <= RECOVERY_FAILURE_BOUND) return n;
  return minSampleSize;
}

/** The region's own samples of a provider (its window's samples when that is unknown). */
export function ownSamples(e: TControllerEvidence): number {
  return e.regional === null ? e.sampleCount : e.regional.samples;
}

/**
 * The recovery is proven: min_sample_size samples behind its score (as before, also when the score
 * borrowed the operation-wide window), or its own calls in the region pass the failure bound.
 */
export function recoveryProven(e: TControllerEvidence, minSampleSize: number): boolean {
  return e.sampleCount >= minSampleSize || ownSamples(e) >= samplesToProve(e.regional?.failures ?? null, minSampleSize);
}

/** Its own calls in the region prove, at the lower bound's z (default one-sided 95%), a failure rate above RECOVERY_FAILURE_BOUND. */
function provenAbove(e: TControllerEvidence, z?: number): boolean {
  const r = e.regional;
  return r !== null && r.samples > 0 && failureLowerBound(r.failures / r.samples, r.samples, z) > RECOVERY_FAILURE_BOUND;
}

/** Its own calls prove (one-sided 95% lower bound) a failure rate above RECOVERY_FAILURE_BOUND. */
export const provenFailing = (e: TControllerEvidence): boolean => provenAbove(e);

/**
 * One-sided 99.9%. A recovery is judged again every tick of its cooldown and failback, on windows
 * that overlap and keep a chance cluster of failures for a whole window, so the 95% bound that
 * keeps a provider from looking recovered would give a healthy one up on noise: a provider failing
 * 2.8% of its calls shows 6 in 62 about once in a hundred looks.
 */
const Z_GIVE_UP = 3.0902323;

/**
 * Its own calls prove, beyond the noise of repeated looks (Z_GIVE_UP), a failure rate above
 * RECOVERY_FAILURE_BOUND: what gives a recovery up, a band below what stops it looking recovered.
 */
export const provenStillFailing = (e: TControllerEvidence): boolean => provenAbove(e, Z_GIVE_UP);

/** The score the evidence gives at full sample confidence. */
export function fullScore(e: TControllerEvidence | undefined): number | null {
  return e === undefined || e.score === null ? null : e.score + e.confidencePoints;
}

/** The lead p needs over the leader: none over a leader it outranks in the priority order, else the hysteresis margin. */
export function leadNeeded(universe: readonly string[], p: string, leader: string, margin: number): number {
  return universe.indexOf(p) < universe.indexOf(leader) ? 0 : margin;
}

/**
 * The share a recovering provider is probed at: enough for its window to hold min_sample_size
 * samples at the region's current volume (all candidates' samples in the window), bounded by
 * [primary_probe_share, recovery_probe_share]. A provider whose window already holds them, and any
 * at a few thousand decisions a minute, stays on the probe floor.
 */
export function recoveryProbeShare(cfg: TControllerConfig, evidence: readonly TControllerEvidence[], own: TControllerEvidence): number {
  const floor = cfg.safety.primary_probe_share;
  if (ownSamples(own) >= cfg.min_sample_size) return floor;
  const ceiling = Math.max(floor, cfg.recovery_probe_share ?? DEFAULT_RECOVERY_PROBE_SHARE);
  const total = evidence.reduce((s, e) => s + e.sampleCount, 0);
  const wanted = total > 0 ? cfg.min_sample_size / total : ceiling;
  return Math.min(ceiling, Math.max(floor, wanted));
}

/** About how many calls a minute a share brings, from the window's volume; null when the window length is unknown. */
function callsPerMinute(share: number, evidence: readonly TControllerEvidence[], windowMinutes: number | undefined): number | null {
  if (windowMinutes === undefined || !(windowMinutes > 0)) return null;
  const total = evidence.reduce((s, e) => s + e.sampleCount, 0);
  return Math.round(((share * total) / windowMinutes) * 10) / 10;
}

/**
 * The gap of every displaced provider that is eligible and scored, from one tick's evidence. A
 * provider already failing back is left out: it is on its way back. One in cooldown is shown with
 * the cooldown's end. A former primary is measured at full sample confidence against the proof of
 * its samples; one the leader outranks by its score against the margin on min_sample_size samples.
 */
export function regainGaps(
  cfg: TControllerConfig,
  universe: readonly string[],
  leader: string | null,
  displaced: readonly string[],
  recovery: TRecovery | null,
  evidence: readonly TControllerEvidence[],
  probeShareOf: (p: string) => number,
): TRegainGap[] {
  const byProvider = new Map(evidence.map((e) => [e.provider, e]));
  const le = leader === null ? undefined : byProvider.get(leader);
  if (leader === null || le === undefined || le.score === null) return [];
  const gaps: TRegainGap[] = [];
  for (const p of displaced) {
    const e = byProvider.get(p);
    if (p === leader || (recovery?.provider === p && recovery.phase === "failback") || e === undefined || !e.eligible || e.score === null) continue;
    const primary = leadNeeded(universe, p, leader, cfg.hysteresis_score_margin) === 0;
    const score = primary ? (fullScore(e) as number) : e.score;
    const leaderScore = primary ? (fullScore(le) as number) : le.score;
    const margin = primary ? 0 : cfg.hysteresis_score_margin;
    const cooling = recovery?.provider === p && recovery.phase === "cooldown";
    const share = probeShareOf(p);
    gaps.push({
      provider: p,
      leader,
      score,
      leaderScore,
      margin,
      needs: leaderScore + margin - score,
      trusted: primary ? recoveryProven(e, cfg.min_sample_size) : e.sampleCount >= cfg.min_sample_size,
      samples: primary ? ownSamples(e) : e.sampleCount,
      samplesNeeded: primary ? samplesToProve(e.regional?.failures ?? null, cfg.min_sample_size) : cfg.min_sample_size,
      probeShare: share,
      callsPerMinute: callsPerMinute(share, evidence, cfg.metric_window_minutes),
      phase: cooling ? "cooldown" : "waiting",
      reconsiderAt: cooling ? recovery.cooldownUntil : null,
    });
  }
  return gaps;
}
