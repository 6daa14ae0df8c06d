/** Display formatting shared by the console's tables and charts. Missing values read "–". */
import { providerColors } from "./charts/provider-colors";

export function pct(v: number | null | undefined, digits = 1): string {
  return v === null || v === undefined || !Number.isFinite(v) ? "–" : `${(v * 100).toFixed(digits)}%`;
}

export function ms(v: number | null | undefined): string {
  if (v === null || v === undefined || !Number.isFinite(v)) return "–";
  return v >= 10_000 ? `${(v / 1000).toFixed(1)} s` : `${Math.round(v)} ms`;
}

export function num(v: number | null | undefined, digits = 1): string {
  return v === null || v === undefined || !Number.isFinite(v) ? "–" : v.toFixed(digits);
}

/** UTC, to the second: on-call compares times across tools and regions, so one zone everywhere. */
export function utc(t: number | null | undefined): string {
  return t === null || t === undefined ? "–" : `${new Date(t).toISOString().slice(0, 19).replace("T", " ")}Z`;
}

export function utcShort(t: number): string {
  return new Date(t).toISOString().slice(11, 19);
}

/** "3m 12s ago"-style age relative to `now`. */
export function age(t: number | null | undefined, now: number): string {
  if (t === null || t === undefined) return "–";
  const s = Math.max(0, Math.round((now - t) / 1000));
  if (s < 60) return `${s}s ago`;
  if (s < 3600) return `${Math.floor(s / 60)}m ${s % 60}s ago`;
  if (s < 86_400) return `${Math.floor(s / 3600)}h ${Math.floor((s % 3600) / 60)}m ago`;
  return `${Math.floor(s / 86_400)}d ${Math.floor((s % 86_400) / 3600)}h ago`;
}

/** Shares as "A 45% · B 55%", providers sorted. */
export function sharesText(shares: Record<string, number>): string {
  return Object.keys(shares)
    .sort()
    .map((p) => `${p.replace(/^provider_/, "")} ${pct(shares[p], 0)}`)
    .join(" · ");
}

/** A provider's colour in a chart showing `all`: the same on every chart (charts/provider-colors.ts). */
export function providerColor(provider: string, all: readonly string[]): string {
  return providerColors([...all, provider]).get(provider)!;
}
