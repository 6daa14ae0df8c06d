import type { TControllerEvidence } from "./controller-types";

/**
 * What a displaced former leader lacks to take traffic back. Hysteresis is policy: a healthy
 * former primary that does not beat the current leader by `hysteresis_score_margin` (on
 * `min_sample_size` samples) keeps only its probe floor for as long as that holds. Showing the
 * gap tells an operator that this is the margin at work, not a failure.
 */
export type TRegainGap = {
  provider: string;
  leader: string;
  score: number;
  leaderScore: number;
  margin: number;
  /** Score points still missing: leaderScore + margin − score; ≤ 0 when the score alone would do. */
  needs: number;
  /** The provider's samples reach min_sample_size, the other condition of recovery. */
  trusted: boolean;
};

/**
 * The gap of every displaced provider that is eligible and scored, from one tick's evidence. A
 * provider already recovering (cooldown or failback) is left out: it is on its way back.
 */
export function regainGaps(
  leader: string | null,
  displaced: readonly string[],
  recovering: string | null,
  evidence: readonly TControllerEvidence[],
  margin: number,
  minSampleSize: number,
): TRegainGap[] {
  const byProvider = new Map(evidence.map((e) => [e.provider, e]));
  const leaderScore = leader === null ? null : (byProvider.get(leader)?.score ?? null);
  if (leader === null || leaderScore === null) return [];
  const gaps: TRegainGap[] = [];
  for (const p of displaced) {
    const e = byProvider.get(p);
    if (p === leader || p === recovering || e === undefined || !e.eligible || e.score === null) continue;
    gaps.push({ provider: p, leader, score: e.score, leaderScore, margin, needs: leaderScore + margin - e.score, trusted: e.sampleCount >= minSampleSize });
  }
  return gaps;
}
