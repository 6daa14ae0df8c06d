import type { Clock } from "../clock";
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
