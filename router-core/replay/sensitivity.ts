import type { TFactorList } from "../policy/schema";
import { mergedP95, type TRunResult } from "./engine";
import type { TRouterWiring } from "./factor-list-policy";

/**
 * Table 15's parameter variations. Weights keep summing to 1: the weight taken from one score
 * goes to the other, the rest of Listing 1 stays as it is.
 */
export type TSensitivityVariant = {
  id: string;
  parameter: string;
  factorList(base: TFactorList): TFactorList;
  wiring: Partial<TRouterWiring>;
};

const withWeights = (base: TFactorList, completion: number, latency: number): TFactorList => ({
  ...base,
  scores: {
    ...base.scores,
    completion_rate_5m: { weight: completion, direction: "higher" },
    p95_latency_5m: { weight: latency, direction: "lower" },
  },
});

export const SENSITIVITY_VARIANTS: readonly TSensitivityVariant[] = [
  { id: "scen_01_baseline", parameter: "none", factorList: (b) => b, wiring: {} },
  { id: "scen_02_comp_heavy", parameter: "weight_completion_rate", factorList: (b) => withWeights(b, 0.6, 0.05), wiring: {} },
  { id: "scen_03_lat_heavy", parameter: "weight_latency", factorList: (b) => withWeights(b, 0.3, 0.35), wiring: {} },
  {
    id: "scen_04_low_cap",
    parameter: "traffic_cap_percent",
    factorList: (b) => ({ ...b, safety: { ...b.safety, max_traffic_shift_per_minute: 0.1 } }),
    wiring: {},
  },
  { id: "scen_05_stale_delay", parameter: "metric_staleness_seconds", factorList: (b) => b, wiring: { telemetryDelaySeconds: 120 } },
];

export type TSensitivityRow = {
  id: string;
  parameter: string;
  /** 100 × success rate / the baseline variant's. */
  completionIdx: number;
  /** 100 × failed requests / the baseline variant's. */
  failedIdx: number;
  /** 100 × p95 latency / the baseline variant's. */
  p95Idx: number;
  switches: number;
  oscillations: number;
  /** Mean over the scenarios where the primary's share got down to 20%; null if it never did. */
  shiftAwayMinutes: number | null;
  successRate: number;
  p95Ms: number | null;
};

type TAggregate = { requests: number; successes: number; p95: number | null; switches: number; oscillations: number; shiftAway: number | null };

function aggregate(runs: readonly TRunResult[]): TAggregate {
  let requests = 0;
  let successes = 0;
  let switches = 0;
  let oscillations = 0;
  const shifts: number[] = [];
  for (const r of runs) {
    requests += r.metrics.requests;
    successes += r.metrics.successes;
    switches += r.metrics.switches;
    oscillations += r.metrics.oscillations;
    if (r.metrics.shiftAwayMinutes !== null) shifts.push(r.metrics.shiftAwayMinutes);
  }
  return {
    requests,
    successes,
    p95: mergedP95(runs.map((r) => r.latency)),
    switches,
    oscillations,
    shiftAway: shifts.length > 0 ? shifts.reduce((a, b) => a + b, 0) / shifts.length : null,
  };
}

/** Rows relative to the first variant's runs (the baseline = 100). `runs[i]` are variant i's runs over the chosen scenarios. */
export function sensitivityRows(variants: readonly TSensitivityVariant[], runs: readonly (readonly TRunResult[])[]): TSensitivityRow[] {
  const aggs = runs.map(aggregate);
  const base = aggs[0];
  if (base === undefined) return [];
  const idx = (v: number, b: number) => (b > 0 ? (100 * v) / b : v > 0 ? Infinity : 100);
  return variants.map((v, i) => {
    const a = aggs[i]!;
    const rate = a.requests > 0 ? a.successes / a.requests : 0;
    const baseRate = base.requests > 0 ? base.successes / base.requests : 0;
    return {
      id: v.id,
      parameter: v.parameter,
      completionIdx: idx(rate, baseRate),
      failedIdx: idx(a.requests - a.successes, base.requests - base.successes),
      p95Idx: a.p95 !== null && base.p95 !== null ? idx(a.p95, base.p95) : 100,
      switches: a.switches,
      oscillations: a.oscillations,
      shiftAwayMinutes: a.shiftAway,
      successRate: rate,
      p95Ms: a.p95,
    };
  });
}
