import type { TStep } from "./types";

const pct = (v: number) => `${Math.round(v * 1000) / 10}%`;

function span(ms: number): string {
  if (ms < 90_000) return `${Math.round(ms / 1000)} s`;
  if (ms < 90 * 60_000) return `${Math.round(ms / 60_000)} min`;
  return `${Math.round(ms / 360_000) / 10} h`;
}

/**
 * A step in one sentence: the provider whose share moved most, from and to, over how many ticks
 * and how long ("provider_A 99% → 1% in 4 steps over 2 min").
 */
export function stepSummary(s: Pick<TStep, "sharesFrom" | "sharesTo" | "ticks" | "startedAt" | "endedAt" | "provider">): string {
  const providers = [...new Set([...Object.keys(s.sharesFrom), ...Object.keys(s.sharesTo)])].sort();
  const moved = (p: string) => Math.abs((s.sharesTo[p] ?? 0) - (s.sharesFrom[p] ?? 0));
  const main = providers.reduce<string | null>((best, p) => (best === null || moved(p) > moved(best) + 1e-9 ? p : best), null) ?? s.provider;
  const ticks = `${s.ticks} ${s.ticks === 1 ? "step" : "steps"}`;
  const over = s.endedAt > s.startedAt ? ` over ${span(s.endedAt - s.startedAt)}` : "";
  if (main === null || moved(main) < 1e-6) return `shares unchanged in ${ticks}${over}`;
  return `${main} ${pct(s.sharesFrom[main] ?? 0)} → ${pct(s.sharesTo[main] ?? 0)} in ${ticks}${over}`;
}
