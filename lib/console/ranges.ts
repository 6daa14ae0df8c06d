/**
 * Time ranges of the console's charts. Shared by server read models and client components, so
 * this file stays free of server-only imports. Bucket widths keep every range near 100–200
 * points: enough to see a shift's shape, few enough to render without jank.
 */
export const RANGES = {
  "15m": { label: "15 min", ms: 15 * 60_000, bucketSeconds: 10 },
  "1h": { label: "1 h", ms: 60 * 60_000, bucketSeconds: 30 },
  "24h": { label: "24 h", ms: 24 * 60 * 60_000, bucketSeconds: 600 },
  "7d": { label: "7 d", ms: 7 * 24 * 60 * 60_000, bucketSeconds: 3600 },
} as const;

export type TRangeKey = keyof typeof RANGES;

export const RANGE_KEYS = ["15m", "1h", "24h", "7d"] as const satisfies readonly TRangeKey[];

export function parseRange(value: string | string[] | undefined, fallback: TRangeKey = "1h"): TRangeKey {
  return typeof value === "string" && value in RANGES ? (value as TRangeKey) : fallback;
}

/** The first value of a search parameter (Next gives arrays for repeated keys). */
export function firstParam(value: string | string[] | undefined): string | undefined {
  return Array.isArray(value) ? value[0] : value;
}

/** Cookie holding the overview's last operation, region and range (URL query form), so the nav's plain "/" link reopens them. */
export const OVERVIEW_COOKIE = "sy_overview";

/** The remembered selection from the cookie's value; unknown keys and oversized values are ignored. */
export function parseOverviewCookie(value: string | undefined): { operation?: string; region?: string; range?: string } {
  if (!value || value.length > 300) return {};
  const q = new URLSearchParams(value);
  const pick = (k: string) => {
    const v = q.get(k);
    return v && v.length <= 100 ? v : undefined;
  };
  return { operation: pick("operation"), region: pick("region"), range: pick("range") };
}
