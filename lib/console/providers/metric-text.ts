/**
 * Evidence metrics as text for the console. Pure (no server imports) so the Why page's components
 * render with it and unit tests pin it: a metric can be a number, a timestamp, a list of weighted
 * contributions or a nested object, and each must read as what it is rather than `[object Object]`.
 */

type TContributionLike = { score: string; index: number; weight: number; value?: number; raw?: number | null };

function pct(v: number): string {
  return `${(v * 100).toFixed(1)}%`;
}

function isContribution(v: unknown): v is TContributionLike {
  if (typeof v !== "object" || v === null) return false;
  const c = v as Record<string, unknown>;
  return typeof c.score === "string" && typeof c.index === "number" && typeof c.weight === "number";
}

/** A key holding a wall-clock time: `updatedAt`, `openedAt`, `since`, `at`. */
function isTimeKey(key: string): boolean {
  return /(At|_at|since|Since)$/.test(key) || key === "at";
}

/** Epoch milliseconds between 2001 and 2286: anything else under a time key is not a date. */
function isEpochMs(v: number): boolean {
  return Number.isInteger(v) && v > 1e12 && v < 1e13;
}

export function utcText(t: number): string {
  return `${new Date(t).toISOString().slice(0, 19).replace("T", " ")}Z`;
}

function numberText(key: string, v: number): string {
  if (isTimeKey(key) && isEpochMs(v)) return utcText(v);
  if (/rate|share|confidence/i.test(key)) return pct(v);
  if (/ms$/i.test(key)) return v >= 10_000 ? `${(v / 1000).toFixed(1)} s` : `${Math.round(v)} ms`;
  return Number.isInteger(v) ? String(v) : v.toFixed(2);
}

/** One weighted-score term as "completion_rate 0.45 × 80.0 = 36.0". */
export function contributionText(c: TContributionLike): string {
  const value = c.value ?? c.weight * c.index;
  return `${c.score} ${c.weight.toFixed(2)} × ${c.index.toFixed(1)} = ${value.toFixed(1)}`;
}

/** A metric value as text; `key` says how a number reads (rate, ms, time). */
export function metricText(key: string, v: unknown): string {
  if (v === null || v === undefined) return "–";
  if (typeof v === "number") return Number.isFinite(v) ? numberText(key, v) : "–";
  if (typeof v === "string" || typeof v === "boolean") return String(v);
  if (Array.isArray(v)) {
    if (v.length === 0) return "none";
    return v.map((item) => (isContribution(item) ? contributionText(item) : metricText(key, item))).join(", ");
  }
  if (isContribution(v)) return contributionText(v);
  return Object.entries(v as Record<string, unknown>)
    .map(([k, inner]) => `${k} ${metricText(k, inner)}`)
    .join(", ");
}
