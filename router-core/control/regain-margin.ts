import type { TControllerEvidence, TRegainGap } from "./controller-types";

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
