import type { TScoreName } from "../policy/names";
import type { TMetricSnapshot } from "../types";
import { rawMetric, scoreIndex, type TIndexSpec, type TNormalization } from "./indices";

/** Immutable: records share contribution lists (decision/evaluate.ts). */
export type TContribution = Readonly<{
  score: TScoreName | "stale_penalty";
  /** The raw metric (ms, rate, cost, count; metric age in s for stale_penalty); null when missing. */
  raw: number | null;
  /** 0–100, higher is better. */
  index: number;
  weight: number;
  /** weight × index; for stale_penalty, minus the points taken off. */
  value: number;
  /** True when the index is the safe default rather than measured. */
  defaulted: boolean;
}>;

/** `slo`: the score's absolute objective (latency ms), capping the index of a candidate above it; null for none. */
export type TWeightedSpec = { spec: TIndexSpec; weight: number; slo: number | null };

/**
 * A relative index measures a candidate against the best one, so with no other candidate measured
 * the slowest provider is the best and scores 100. The objective caps it: above the SLO the index
 * is at most 100 × slo / own, whoever else has data.
 */
function capBySlo(index: number, raw: number, slo: number | null): number {
  if (slo === null || raw <= slo) return index;
  const capped = (100 * slo) / raw;
  return capped < index ? capped : index;
}

export type TStaleTreatment = "fresh" | "safe_default" | "penalty";

/**
 * A candidate's raw metrics per spec and the indices that depend on its own metrics only, worked
 * out once per routing state (decision/lookups.ts caches them with the state's lookups): `raw[at + i]`
 * and `index[at + i]` for spec i, index NaN where it depends on the normalisation or raw is null.
 */
export type TPrecomputed = { raw: readonly (number | null)[]; index: Float64Array; at: number };

/** Fills `raw` and `index` for one candidate at offset `at` (see TPrecomputed). */
export function precomputeInto(
  raw: (number | null)[],
  index: Float64Array,
  at: number,
  specs: readonly TWeightedSpec[],
  metrics: TMetricSnapshot | undefined,
  cost: number,
): void {
  for (let i = 0; i < specs.length; i++) {
    const spec = specs[i]!.spec;
    const r = rawMetric(spec.name, metrics, cost);
    raw[at + i] = r;
    index[at + i] = r === null || spec.relative ? NaN : scoreIndex(spec.name, r, NO_NORM, metrics === undefined ? 0 : metrics.sampleCount);
  }
}

const NO_NORM: TNormalization = { minP95: Infinity, minP99: Infinity, minCost: Infinity };

/**
 * Writes the weighted contributions of one candidate to `out` from index 0 (an empty array, or
 * one pre-sized to the count) and returns the score, computed as the running sum of exactly the
 * values written, so the record always adds up. `pre`: the candidate's precomputed raw values and
 * own-metric indices (the same numbers this would compute).
 */
export function scoreInto(
  out: TContribution[],
  specs: readonly TWeightedSpec[],
  metrics: TMetricSnapshot | undefined,
  cost: number,
  norm: TNormalization,
  stale: TStaleTreatment,
  penaltyPoints: number,
  metricAgeSeconds: number | null,
  pre: TPrecomputed | null = null,
): number {
  let score = 0;
  for (let i = 0; i < specs.length; i++) {
    const { spec, weight, slo } = specs[i]!;
    const raw = pre !== null ? pre.raw[pre.at + i]! : rawMetric(spec.name, metrics, cost);
    const defaulted = raw === null || (spec.fromTelemetry && stale === "safe_default");
    const known = pre !== null ? pre.index[pre.at + i]! : NaN;
    const index = defaulted
      ? spec.safeDefault
      : capBySlo(known === known ? known : scoreIndex(spec.name, raw, norm, metrics === undefined ? 0 : metrics.sampleCount), raw, slo);
    const value = weight * index;
    out[i] = { score: spec.name, raw, index, weight, value, defaulted };
    score += value;
  }
  if (stale === "penalty" && penaltyPoints > 0) {
    // Never below zero, so a stale candidate's score stays on the same 0–100 scale.
    const value = -(penaltyPoints < score ? penaltyPoints : score);
    out[specs.length] = { score: "stale_penalty", raw: metricAgeSeconds, index: 0, weight: 1, value, defaulted: false };
    score += value;
  }
  return score;
}
