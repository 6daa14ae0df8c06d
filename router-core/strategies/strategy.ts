import type { TCandidateWork, TPriceEvidence } from "../decision/record";
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
  /**
   * Where select() writes each eligible candidate's selection probability (index-aligned with
   * `eligible`; at least as long). Records are immutable and shared between decisions, so the
   * probabilities go here and decide() puts them into the decision's records.
   */
  probabilities: Float64Array;
  /**
   * The shares object the eligible records' `share` was read from. When `shares` is this object,
   * `record.share` is the same number as `shares[record.provider]` without a keyed lookup.
   */
  recordedShares?: TShares | null;
};

/** The candidate's share in `shares` (undefined when it has none), from its record when the record was read from the same object. */
export function shareOf(input: TStrategyInput, c: TCandidateWork): number | undefined {
  const shares = input.shares;
  if (!shares) return undefined;
  if (shares === input.recordedShares) return c.record.share ?? undefined;
  return shares[c.record.provider];
}

export type TStrategySelection = { index: number; reasonCode: TReasonCode; evidence?: TPriceEvidence };

/**
 * Picks one of the eligible candidates and writes each one's probability to input.probabilities. A strategy
 * is stateless; anything it needs across requests (shares, sequence) comes in the input.
 */
export interface RoutingStrategy {
  readonly name: TStrategyName;
  select(input: TStrategyInput): TStrategySelection;
}

/**
 * Draws index i with probability weights[i] / sum over the eligible, writing each probability to
 * `out`. `weights` may be longer than `eligible` (a reused scratch buffer); entries past
 * the eligible are ignored. Quota share ceilings (TQuotaView.shareCeiling) are applied to the
 * renormalised weights first. Returns -1 when no weight is positive.
 */
export function drawWeighted(eligible: readonly TCandidateWork[], weights: ArrayLike<number>, u: number, out: Float64Array): number {
  const n = eligible.length;
  if (hasCeiling(eligible)) {
    let sum = 0;
    for (let i = 0; i < n; i++) sum += weights[i]!;
    if (!(sum > 0)) return -1;
    const p = scratchProbabilities(n);
    for (let i = 0; i < n; i++) p[i] = weights[i]! / sum;
    if (applyCeilings(eligible, p)) return draw(eligible, p, u, out);
  }
  return draw(eligible, weights, u, out);
}

/** The first eligible provider, unless a share ceiling makes it share the traffic. */
export function selectFirst(eligible: readonly TCandidateWork[], u: number, out: Float64Array): number {
  if (hasCeiling(eligible)) {
    const p = scratchProbabilities(eligible.length).fill(0, 0, eligible.length);
    p[0] = 1;
    if (applyCeilings(eligible, p)) return draw(eligible, p, u, out);
  }
  out.fill(0, 0, eligible.length);
  out[0] = 1;
  return 0;
}

function draw(eligible: readonly TCandidateWork[], weights: ArrayLike<number>, u: number, out: Float64Array): number {
  const n = eligible.length;
  let sum = 0;
  for (let i = 0; i < n; i++) sum += weights[i]!;
  if (!(sum > 0)) return -1;
  const target = u * sum;
  let acc = 0;
  let chosen = -1;
  for (let i = 0; i < n; i++) {
    const w = weights[i]!;
    out[i] = w / sum;
    acc += w;
    if (chosen === -1 && w > 0 && target < acc) chosen = i;
  }
  // Rounding can leave target just above the last partial sum: the last positive weight takes it.
  if (chosen === -1) for (let i = n - 1; i >= 0 && chosen === -1; i--) if (weights[i]! > 0) chosen = i;
  return chosen;
}

function ceilingOf(c: TCandidateWork): number {
  const x = c.quota?.shareCeiling;
  return x === undefined || !(x < 1) ? 1 : x > 0 ? x : 0;
}

function hasCeiling(eligible: readonly TCandidateWork[]): boolean {
  for (let i = 0; i < eligible.length; i++) if (ceilingOf(eligible[i]!) < 1) return true;
  return false;
}

/**
 * Caps each probability in `p` (summing to 1) at its provider's share ceiling. The excess goes to
 * the providers below their ceiling in proportion to their probability (repeated, since that can
 * lift another over its own ceiling), so a recovering provider ramps up while the rest of its
 * traffic goes where traffic already flows; when none of them has any, to them in priority order,
 * the failover order. Ceilings move traffic, never drop it: when every provider is at its ceiling
 * and the ceilings sum to less than 1, they are scaled up together. Returns false when nothing can
 * carry traffic (every ceiling 0), leaving the strategy's own weights to stand.
 */
function applyCeilings(eligible: readonly TCandidateWork[], p: Float64Array): boolean {
  const n = eligible.length;
  const capped = scratchCapped(n).fill(0, 0, n);
  // Each round with excess caps at least one more provider, so n + 1 rounds always suffice.
  for (let round = 0; round <= n; round++) {
    let excess = 0;
    for (let i = 0; i < n; i++) {
      if (capped[i]) continue;
      const c = ceilingOf(eligible[i]!);
      if (p[i]! >= c) {
        excess += p[i]! - c;
        p[i] = c;
        capped[i] = 1;
      }
    }
    if (!(excess > 0)) return true;
    let open = 0;
    for (let i = 0; i < n; i++) if (!capped[i]) open += p[i]!;
    if (open > 0) {
      for (let i = 0; i < n; i++) if (!capped[i]) p[i] = p[i]! + (excess * p[i]!) / open;
      continue;
    }
    for (let i = 0; i < n && excess > 0; i++) {
      if (capped[i]) continue;
      const room = ceilingOf(eligible[i]!) - p[i]!;
      const take = room < excess ? room : excess;
      p[i] = p[i]! + take;
      excess -= take;
    }
    if (!(excess > 0)) return true;
    break;
  }
  let total = 0;
  for (let i = 0; i < n; i++) total += p[i]!;
  if (!(total > 0)) return false;
  for (let i = 0; i < n; i++) p[i] = p[i]! / total;
  return true;
}

let weightBuffer = new Float64Array(16);
let probabilityBuffer = new Float64Array(16);
let cappedBuffer = new Uint8Array(16);

/**
 * A weight buffer of at least n entries, reused across decisions: select() runs synchronously
 * and drawWeighted consumes the weights before returning, so no two users overlap.
 */
export function scratchWeights(n: number): Float64Array {
  if (weightBuffer.length < n) weightBuffer = new Float64Array(Math.max(n, 2 * weightBuffer.length));
  return weightBuffer;
}

function scratchProbabilities(n: number): Float64Array {
  if (probabilityBuffer.length < n) probabilityBuffer = new Float64Array(Math.max(n, 2 * probabilityBuffer.length));
  return probabilityBuffer;
}

function scratchCapped(n: number): Uint8Array {
  if (cappedBuffer.length < n) cappedBuffer = new Uint8Array(Math.max(n, 2 * cappedBuffer.length));
  return cappedBuffer;
}
