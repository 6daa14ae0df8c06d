/**
 * Result metrics of a replay run (issue 4), as small pure functions over per-minute and
 * per-slot counts so each definition can be checked on hand-computed cases.
 */

export const DEGRADED_SHARE_THRESHOLD = 0.05;
export const OSCILLATION_WINDOW_MINUTES = 5;
export const SHIFT_AWAY_SHARE = 0.2;

export function successRate(successes: number, requests: number): number {
  return requests > 0 ? successes / requests : 0;
}

/** Minutes in which more than `threshold` of the traffic went to a degraded provider-region. */
export function degradedMinutes(exposed: ArrayLike<number>, total: ArrayLike<number>, threshold = DEGRADED_SHARE_THRESHOLD): number {
  let n = 0;
  for (let m = 0; m < total.length; m++) {
    const t = total[m]!;
    if (t > 0 && exposed[m]! / t > threshold) n++;
  }
  return n;
}

/**
 * The leader of each minute: the provider that served the most requests. A tie or an empty
 * minute keeps the previous leader, so noise between equal shares is not a switch. The first
 * minute's tie goes to the lower index (the primary).
 */
export function minuteLeaders(counts: readonly (readonly number[])[]): number[] {
  const out: number[] = [];
  let previous = 0;
  for (const row of counts) {
    let best = previous;
    let bestCount = row[previous] ?? 0;
    for (let p = 0; p < row.length; p++) {
      if (row[p]! > bestCount) {
        best = p;
        bestCount = row[p]!;
      }
    }
    out.push(best);
    previous = best;
  }
  return out;
}

export function countSwitches(leaders: readonly number[]): number {
  let n = 0;
  for (let m = 1; m < leaders.length; m++) if (leaders[m] !== leaders[m - 1]) n++;
  return n;
}

/**
 * Leader changes that reverse within `withinMinutes`: a change away from X at minute m counts
 * when X leads again at some minute in (m, m + withinMinutes]. The change back is not itself an
 * oscillation unless it is reversed in turn.
 */
export function countOscillations(leaders: readonly number[], withinMinutes = OSCILLATION_WINDOW_MINUTES): number {
  let n = 0;
  for (let m = 1; m < leaders.length; m++) {
    const from = leaders[m - 1]!;
    if (leaders[m] === from) continue;
    for (let k = m + 1; k < leaders.length && k <= m + withinMinutes; k++) {
      if (leaders[k] === from) {
        n++;
        break;
      }
    }
  }
  return n;
}

/**
 * Minutes from the degradation start until the primary's share of the affected scope is at most
 * `threshold`, measured at the end of the first slot where it is. `share[s]` is the primary's
 * share of slot s (NaN for a slot without traffic). Null when it never gets there.
 */
export function shiftAwayMinutes(share: ArrayLike<number>, startSlot: number, slotSeconds: number, threshold = SHIFT_AWAY_SHARE): number | null {
  for (let s = startSlot; s < share.length; s++) {
    const v = share[s]!;
    if (!Number.isNaN(v) && v <= threshold) return ((s + 1 - startSlot) * slotSeconds) / 60;
  }
  return null;
}
