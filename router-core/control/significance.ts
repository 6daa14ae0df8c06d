import { failureLowerBound } from "../scoring/indices";
import type { TControllerCandidate, TRateEvidence } from "./controller-types";
import { failureUpperBound } from "./regain-margin";

/**
 * Whether a challenger's lead is evidence or sampling noise. The rate indices score a failure rate
 * by its lower confidence bound, which gives thin evidence the benefit of the doubt: a probe-floor
 * provider's few dozen calls can out-score a well-sampled leader whose failure rate is in truth
 * lower. Below min_sample_size, confidence_from_sample takes points off such a window; from
 * min_sample_size on it takes none, and with a small min_sample_size that leaves the benefit of
 * the doubt unchecked. So a challenger with min_sample_size samples counts its lead on a rate
 * score only when its failure rate is proven lower than the incumbent's; an unproven rate lead is
 * taken off its score before the hysteresis test (controller-tick.ts, step 2).
 */

type TRate = Pick<TRateEvidence, "failureRate" | "samples">;

/**
 * a's failure rate is lower than b's at one-sided 95% confidence: the lower bound of b − a by
 * Newcombe's hybrid score interval (each rate's Wilson bound, combined) is above 0. Unlike
 * comparing the two Wilson bounds, it does not demand that the intervals be disjoint.
 */
export function provenLowerFailureRate(a: TRate, b: TRate): boolean {
  if (!(a.samples > 0) || !(b.samples > 0)) return false;
  const d = b.failureRate - a.failureRate;
  if (!(d > 0)) return false;
  const bDown = b.failureRate - failureLowerBound(b.failureRate, b.samples);
  const aUp = failureUpperBound(a.failureRate * a.samples, a.samples) - a.failureRate;
  return d - Math.sqrt(bDown * bDown + aUp * aUp) > 0;
}

/** One rate score whose lead the challenger's samples do not prove, and the points taken off for it. */
export type TUnprovenLead = { score: string; points: number };

/**
 * The challenger's points on rate scores above the incumbent's where its failure rate is not proven
 * lower. A score either side lacks (unmeasured, or safe-defaulted) is left as scored.
 */
export function unprovenRateLeads(challenger: TControllerCandidate | undefined, incumbent: TControllerCandidate | undefined): TUnprovenLead[] {
  const leads: TUnprovenLead[] = [];
  for (const c of challenger?.rates ?? []) {
    const i = incumbent?.rates?.find((r) => r.score === c.score);
    if (i === undefined || !(c.points > i.points) || provenLowerFailureRate(c, i)) continue;
    leads.push({ score: c.score, points: c.points - i.points });
  }
  return leads;
}
