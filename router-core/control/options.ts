/**
 * Option checks shared by the control modules. Messages match the factor-list schema's wording
 * ("max_traffic_shift_per_minute must be in (0, 1], got 1.5") so an operator sees the same text
 * whether a bad value came through the policy codec or a direct call.
 */

export type TBound = { value: number; open: boolean };

/** Inclusive bound: `[v` or `v]`. */
export const closed = (value: number): TBound => ({ value, open: false });
/** Exclusive bound: `(v` or `v)`. */
export const open = (value: number): TBound => ({ value, open: true });

export function checkNumber(name: string, value: unknown, lo: TBound | null, hi: TBound | null, integer = false): number {
  const interval = `${lo ? (lo.open ? "(" : "[") + lo.value : "(-inf"}, ${hi ? hi.value + (hi.open ? ")" : "]") : "inf)"}`;
  if (typeof value !== "number" || !Number.isFinite(value)) {
    throw new RangeError(`${name} must be a finite number in ${interval}, got ${String(value)}`);
  }
  const tooLow = lo !== null && (lo.open ? value <= lo.value : value < lo.value);
  const tooHigh = hi !== null && (hi.open ? value >= hi.value : value > hi.value);
  if (tooLow || tooHigh) throw new RangeError(`${name} must be in ${interval}, got ${value}`);
  if (integer && !Number.isInteger(value)) throw new RangeError(`${name} must be an integer, got ${value}`);
  return value;
}

export function checkTime(name: string, value: unknown): number {
  if (typeof value !== "number" || !Number.isFinite(value)) {
    throw new RangeError(`${name} must be a finite epoch time in ms, got ${String(value)}`);
  }
  return value;
}
