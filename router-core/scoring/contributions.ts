import type { TScoreName } from "../policy/names";
import type { TMetricSnapshot } from "../types";
import type { TIndexSpec, TNormalization } from "./indices";

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
 * Appends the weighted contributions of one candidate to `out` and returns the score, computed
 * as the running sum of exactly the values appended, so the record always adds up.
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
    const raw = spec.raw(metrics, cost);
    const defaulted = raw === null || (spec.fromTelemetry && stale === "safe_default");
    const index = defaulted ? spec.safeDefault : spec.index(raw, norm);
    const value = weight * index;
    out.push({ score: spec.name, raw, index, weight, value, defaulted });
    score += value;
  }
  if (stale === "penalty" && penaltyPoints > 0) {
    // Never below zero, so a stale candidate's score stays on the same 0–100 scale.
    const value = -(penaltyPoints < score ? penaltyPoints : score);
    out.push({ score: "stale_penalty", raw: metricAgeSeconds, index: 0, weight: 1, value, defaulted: false });
    score += value;
  }
  return score;
}
