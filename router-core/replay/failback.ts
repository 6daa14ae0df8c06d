import type { TFactorList } from "../policy/schema";
import { runReplay, type TRunResult, type TTraceMinute } from "./engine";
import { REGIONS, SCENARIOS, TRAFFIC, type TScenarioId } from "./scenarios";
import { createPolicy, listing1 } from "./suite";
import { generateTraffic } from "./traffic";

/**
 * Time to failback at several volumes (issue 42): the six scenarios with the same conditions and
 * region mix, at a total of 10, 2 and 1 decisions a second (Table 14 runs at 10; at 2/s EU has
 * 1/s, NA 0.6/s and APAC 0.4/s), over 90
 * minutes so that a degradation ending at minute 40 leaves the cooldown plus 30 minutes and more.
 * Measured per region from the controller's planned shares at each minute's end: the minutes from
 * the end of the degradation until the primary's share is back at FAILBACK_SHARE or more.
 */
export const FAILBACK_RATES = [
  { label: "10/s", requestsPerMinute: 600 },
  { label: "2/s", requestsPerMinute: 120 },
  { label: "1/s", requestsPerMinute: 60 },
] as const;
export const FAILBACK_MINUTES = 90;
export const FAILBACK_SHARE = 0.9;

export type TFailbackRegion = {
  region: string;
  /** Decisions a second in this region. */
  perSecond: number;
  /** The primary's share fell below FAILBACK_SHARE during the degradation; otherwise there is nothing to fail back. */
  displaced: boolean;
  /** Minutes after the degradation ended until its share was back at FAILBACK_SHARE; null when it never was within the run. */
  failbackMinutes: number | null;
};

export type TFailbackRow = { scenario: TScenarioId; label: string; rate: string; successRate: number; regions: TFailbackRegion[] };

/** One scenario at one volume, with the factor list (Listing 1 unless given) on router-core's shared defaults. */
export function runFailbackScenario(scenario: TScenarioId, requestsPerMinute: number, seed: number, factorList: TFactorList = listing1()): TRunResult {
  const s = SCENARIOS[scenario];
  const traffic = generateTraffic({ ...TRAFFIC, minutes: FAILBACK_MINUTES, requestsPerMinute }, seed);
  return runReplay(
    { model: s.model, traffic, degradedFrom: s.degradedFrom, affectedRegions: s.affectedRegions.map((r) => REGIONS.indexOf(r as (typeof REGIONS)[number])) },
    createPolicy(s, { policy: "factor_list", factorList }),
  );
}

/** The per-region time to failback of a run's trace. */
export function failbackRow(scenario: TScenarioId, rate: { label: string; requestsPerMinute: number }, run: TRunResult): TFailbackRow {
  const s = SCENARIOS[scenario];
  const weights = TRAFFIC.regionWeights;
  const total = weights.reduce((a, b) => a + b, 0);
  const share = (m: TTraceMinute, region: string) => m.shares?.[region]?.A ?? 0;
  const regions = REGIONS.map((region, i) => {
    const during = run.trace.filter((m) => m.minute >= s.degradedFrom && m.minute < s.degradedTo);
    const displaced = during.some((m) => share(m, region) < FAILBACK_SHARE);
    // Shares are read at each minute's end: minute m's row is the state at m + 1.
    const back = run.trace.find((m) => m.minute + 1 > s.degradedTo && share(m, region) >= FAILBACK_SHARE);
    return {
      region,
      perSecond: Math.round(((rate.requestsPerMinute * weights[i]!) / total / 60) * 100) / 100,
      displaced,
      failbackMinutes: !displaced || back === undefined ? null : back.minute + 1 - s.degradedTo,
    };
  });
  return { scenario, label: s.label, rate: rate.label, successRate: run.metrics.successRate, regions };
}

/** The table for stdout: per scenario and volume, each region's minutes to failback ("—": never displaced; "never": not within the run). */
export function formatFailbackTable(rows: readonly TFailbackRow[]): string {
  const header = ["Scenario", "Rate", ...REGIONS.map((r) => `${r} min`), "Success"];
  const cell = (r: TFailbackRegion) => (!r.displaced ? "—" : r.failbackMinutes === null ? "never" : String(r.failbackMinutes));
  const body = rows.map((row) => [row.label, row.rate, ...row.regions.map(cell), `${(row.successRate * 100).toFixed(2)}%`]);
  const widths = header.map((h, i) => Math.max(h.length, ...body.map((r) => r[i]!.length)));
  const line = (cells: readonly string[]) => cells.map((c, i) => (i === 0 ? c.padEnd(widths[i]!) : c.padStart(widths[i]!))).join("  ");
  return [line(header), widths.map((w) => "-".repeat(w)).join("  "), ...body.map(line)].join("\n");
}
