import type { Clock } from "../clock";
import type { TControllerCandidate, TRateEvidence } from "../control/controller-types";
import type { TFactorList } from "../policy/schema";
import type { TContribution } from "../scoring/contributions";
import type { TMetricSnapshot, TRequestContext, TRouterState } from "../types";
import { compilePolicy } from "./compile";
import { evaluateCandidates } from "./evaluate";

export type TScoredProvider = {
  provider: string;
  /** Passed the hard gates and the soft guardrails (or was the least-bad choice). */
  eligible: boolean;
  passedGates: boolean;
  failedGates: string[];
  /** Null when a hard gate failed. */
  score: number | null;
  contributions: readonly TContribution[];
  sampleCount: number;
  stale: boolean;
  metrics: TMetricSnapshot | null;
};

/**
 * The controller's view of one (operation, region): every candidate in priority order with the
 * same gates, indices and score decide() would log, so ranking is never re-implemented.
 */
export function scoreCandidates(
  policy: TFactorList,
  state: TRouterState,
  ctx: Pick<TRequestContext, "region" | "attributes">,
  clock: Clock,
): TScoredProvider[] {
  const { work } = evaluateCandidates(compilePolicy(policy), state, ctx, clock.now());
  return work.map(({ record: r, metrics }) => ({
    provider: r.provider,
    eligible: r.eligible,
    passedGates: r.passedGates,
    failedGates: r.gates.filter((g) => !g.passed).map((g) => g.gate),
    score: r.score,
    contributions: r.contributions,
    sampleCount: r.sampleCount,
    stale: r.stale,
    metrics: metrics ?? null,
  }));
}

/**
 * What the controller reads beside the score. For the recovery test (control/regain-margin.ts):
 * the region's own calls and provider-attributable failures in the window (also when the score
 * borrowed the operation-wide window), and the points confidence_from_sample took off. For a
 * challenge (control/significance.ts): each measured rate score's failure rate, the samples it
 * rests on and its points. Stale telemetry gives no regional evidence: a recovery then proves
 * itself on min_sample_size samples, as before.
 */
export function controllerEvidence(c: TScoredProvider): Pick<TControllerCandidate, "regional" | "confidencePoints" | "rates"> {
  const m = c.metrics;
  if (m === null) return {};
  const rates: TRateEvidence[] = [];
  for (const x of c.contributions) {
    if (x.defaulted || x.raw === null || (x.score !== "completion_rate_5m" && x.score !== "error_rate_5m")) continue;
    rates.push({ score: x.score, failureRate: x.score === "completion_rate_5m" ? 1 - x.raw : x.raw, samples: m.sampleCount, points: x.value });
  }
  if (m.regional === undefined) return { rates };
  const confidence = c.contributions.find((x) => x.score === "confidence_from_sample" && !x.defaulted);
  return {
    regional: { samples: m.regional.sampleCount, failures: m.regional.failures },
    confidencePoints: confidence === undefined ? 0 : Math.max(0, confidence.weight * 100 - confidence.value),
    rates,
  };
}
