import "server-only";
import type { TFactorList } from "@/router-core/policy/schema";
import { EVALUATION_RUNS, type TEvaluationResult, fingerprintOf, getReplay, startReplay, type TReplayJob } from "@/lib/replay";
import type { TEvaluationSourceOption, TEvaluationView } from "./evaluation-types";
import { toReplayStatus } from "./to-replay-status";

/** The seed `npm run replay` and the router-core README report. */
export const DEFAULT_SEED = 42;

export const evaluationKey = (sourceKey: string) => `evaluation:${sourceKey}`;

export function evaluationResultOf(job: TReplayJob | null): TEvaluationResult | null {
  return job?.output?.kind === "evaluation" ? job.output.result : null;
}

/** The page's view of a source: its latest job and last result, traces left out (they are fetched per chart). */
export function evaluationView(source: TEvaluationSourceOption): TEvaluationView {
  const { latest, lastDone, queuePosition } = getReplay(evaluationKey(source.key));
  const full = evaluationResultOf(lastDone);
  let result: TEvaluationView["result"] = null;
  if (full && lastDone) {
    const { traces: _traces, ...summary } = full;
    result = { ...summary, finishedAt: lastDone.finishedAt ?? lastDone.queuedAt, fingerprint: lastDone.fingerprint };
  }
  return { source, status: toReplayStatus(latest, queuePosition), result, defaultSeed: DEFAULT_SEED };
}

export function queueEvaluation(source: TEvaluationSourceOption, factorList: TFactorList, seed: number, requestedBy: string) {
  return startReplay(
    evaluationKey(source.key),
    fingerprintOf(["evaluation", factorList, seed]),
    { kind: "evaluation", factorList, seed },
    requestedBy,
    EVALUATION_RUNS,
  );
}
