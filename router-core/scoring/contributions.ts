import type { TScoreName } from "../policy/names";
import type { TMetricSnapshot } from "../types";
import { rawMetric, scoreIndex, type TIndexSpec, type TNormalization } from "./indices";

export type TContribution = {
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
};

export type TWeightedSpec = { spec: TIndexSpec; weight: number };

export type TStaleTreatment = "fresh" | "safe_default" | "penalty";

/**
 * Writes the weighted contributions of one candidate to `out` from index 0 (an empty array, or
 * one pre-sized to the count) and returns the score, computed as the running sum of exactly the
 * values written, so the record always adds up.
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
): number {
  let score = 0;
  for (let i = 0; i < specs.length; i++) {
    const { spec, weight } = specs[i]!;
    const raw = rawMetric(spec.name, metrics, cost);
    const defaulted = raw === null || (spec.fromTelemetry && stale === "safe_default");
    const index = defaulted ? spec.safeDefault : scoreIndex(spec.name, raw, norm, metrics === undefined ? 0 : metrics.sampleCount);
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
