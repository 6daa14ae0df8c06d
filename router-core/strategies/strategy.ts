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
 * Draws index i with probability weights[i] / sum over the eligible, writing each probability to
 * the candidates. `weights` may be longer than `eligible` (a reused scratch buffer); entries past
 * the eligible are ignored. Returns -1 when no weight is positive.
 */
export function drawWeighted(eligible: readonly TCandidateWork[], weights: ArrayLike<number>, u: number): number {
  const n = eligible.length;
  let sum = 0;
  for (let i = 0; i < n; i++) sum += weights[i]!;
  if (!(sum > 0)) return -1;
  const target = u * sum;
  let acc = 0;
  let chosen = -1;
  for (let i = 0; i < n; i++) {
    const w = weights[i]!;
    eligible[i]!.record.selectionProbability = w / sum;
    acc += w;
    if (chosen === -1 && w > 0 && target < acc) chosen = i;
  }
  // Rounding can leave target just above the last partial sum: the last positive weight takes it.
  if (chosen === -1) for (let i = n - 1; i >= 0 && chosen === -1; i--) if (weights[i]! > 0) chosen = i;
  return chosen;
}

let scratch = new Float64Array(16);

/**
 * A weight buffer of at least n entries, reused across decisions: select() runs synchronously
 * and drawWeighted consumes the weights before returning, so no two users overlap.
 */
export function scratchWeights(n: number): Float64Array {
  if (scratch.length < n) scratch = new Float64Array(Math.max(n, 2 * scratch.length));
  return scratch;
}

export function selectFirst(eligible: readonly TCandidateWork[]): number {
  eligible[0]!.record.selectionProbability = 1;
  return 0;
}
