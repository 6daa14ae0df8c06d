import type { TCandidateWork } from "../decision/record";
import type { TReasonCode } from "../decision/reason-codes";
import type { TStrategyName } from "../policy/names";
import type { TShares } from "../types";

export type TStrategyInput = {
  /** Eligible candidates in static priority order; never empty. */
  eligible: readonly TCandidateWork[];
  shares: TShares | null | undefined;
  /** The decision's single uniform draw in [0, 1). */
  u: number;
  /** Per-instance request counter, for round-robin interleaving; undefined → u is used. */
  sequence: number | undefined;
  p99BaselineMs: number | undefined;
};

export type TStrategySelection = { index: number; reasonCode: TReasonCode };

/**
 * Picks one of the eligible candidates and writes each one's selectionProbability. A strategy
 * is stateless; anything it needs across requests (shares, sequence) comes in the input.
 */
export interface RoutingStrategy {
  readonly name: TStrategyName;
  select(input: TStrategyInput): TStrategySelection;
}

/**
 * Draws index i with probability weights[i] / sum, writing each probability to the candidates.
 * Returns -1 when no weight is positive.
 */
export function drawWeighted(eligible: readonly TCandidateWork[], weights: readonly number[], u: number): number {
  let sum = 0;
  for (let i = 0; i < weights.length; i++) sum += weights[i]!;
  if (!(sum > 0)) return -1;
  const target = u * sum;
  let acc = 0;
  let chosen = -1;
  for (let i = 0; i < weights.length; i++) {
    const w = weights[i]!;
    eligible[i]!.record.selectionProbability = w / sum;
    acc += w;
    if (chosen === -1 && w > 0 && target < acc) chosen = i;
  }
  // Rounding can leave target just above the last partial sum: the last positive weight takes it.
  if (chosen === -1) for (let i = weights.length - 1; i >= 0 && chosen === -1; i--) if (weights[i]! > 0) chosen = i;
  return chosen;
}

export function selectFirst(eligible: readonly TCandidateWork[]): number {
  eligible[0]!.record.selectionProbability = 1;
  return 0;
}
