/**
 * Numbers as a person wrote them: binary floating point turns 0.95 + 0.05 - 0.05 into
 * 0.9500000000000001, which the editor, diff and what-if must never show. Rounds to 12
 * significant digits (far beyond any weight or threshold a factor list holds) and drops the
 * trailing noise; integers and non-finite values pass through as JavaScript writes them.
 */
export function numberText(v: number): string {
  if (!Number.isFinite(v) || Number.isInteger(v)) return String(v);
  return String(Number(v.toPrecision(12)));
}

/** A value for display: numbers through numberText, also inside arrays and objects; strings as they are. */
export function valueText(v: unknown): string {
  if (v === undefined) return "";
  if (typeof v === "string") return v;
  if (typeof v === "number") return numberText(v);
  return JSON.stringify(v, (_k, x: unknown) => (typeof x === "number" && Number.isFinite(x) ? Number(numberText(x)) : x));
}

/** Minutes as "25 min", "3 h" or "2 h 5 min". */
export function durationText(minutes: number): string {
  const h = Math.floor(minutes / 60);
  const m = minutes % 60;
  if (h === 0) return `${m} min`;
  return m === 0 ? `${h} h` : `${h} h ${m} min`;
}
