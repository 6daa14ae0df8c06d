import type { TScoreName } from "../policy/names";
import { FAILURE_RATE_AT_ZERO, SAFE_DEFAULT_INDEX } from "./indices";

const atZero = `${(FAILURE_RATE_AT_ZERO * 100).toFixed(0)}%`;

/**
 * How each score's raw metric maps to its 0–100 index, in one line a person can read next to the
 * number (indices.ts has the reasoning). Without it, completion 0.955 → index 0 reads as a bug: the
 * rate scales are steep on purpose.
 */
export const INDEX_SCALES: Record<TScoreName | "stale_penalty", string> = {
  completion_rate_5m: `100 at no failures, 0 once the failure rate's 95% lower bound reaches ${atZero} (about 33 points per percentage point)`,
  error_rate_5m: `100 at no failed calls, 0 once the failure rate's 95% lower bound reaches ${atZero}`,
  p95_latency_5m: "100 × best p95 among candidates ÷ own p95",
  p99_latency_5m: "100 × best p99 among candidates ÷ own p99",
  cost_per_request: "100 × cheapest price ÷ own price",
  recent_incident_penalty: "100 ÷ (1 + incidents in the window)",
  confidence_from_sample: "100 × √(samples ÷ min_sample_size), capped at 100",
  stale_penalty: "points taken off for metrics older than the stale limit",
};

/** The scale line for a contribution, with the safe-default note when the index was not measured. */
export function indexScaleText(score: TScoreName | "stale_penalty", defaulted: boolean): string {
  const scale = INDEX_SCALES[score] ?? "";
  return defaulted ? `${scale}; no fresh metric, so the safe default ${SAFE_DEFAULT_INDEX}` : scale;
}
