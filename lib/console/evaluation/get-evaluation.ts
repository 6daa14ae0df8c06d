import "server-only";
import { ContractError } from "@/lib/errors";
import { getReplay } from "@/lib/replay";
import { DEFAULT_SEED, evaluationKey, evaluationView, queueEvaluation } from "./evaluation-jobs";
import { LISTING_1_SOURCE, loadEvaluationSource } from "./evaluation-sources";
import type { TEvaluationView } from "./evaluation-types";

/**
 * The evaluation of a source for the page and its polling. The paper's Listing 1 is the
 * reference every reader compares against, so its first view by someone allowed to run
 * evaluations (`canRun`: evaluation.run) queues it, once per process (the run is deterministic
 * and cached). A run costs a worker thread for several seconds, so a viewer's visit never starts
 * one: it sees the last result or the empty state. Every other source runs only when someone
 * with evaluation.run asks.
 */
export async function getEvaluation(sourceKey: string, opts: { canRun: boolean }): Promise<TEvaluationView> {
  const loaded = await loadEvaluationSource(sourceKey);
  if (!loaded) throw new ContractError("not_found", `no factor-list version ${sourceKey}`, [{ path: "version", message: `unknown version "${sourceKey}"` }]);
  if (opts.canRun && loaded.source.key === LISTING_1_SOURCE.key && "factorList" in loaded && getReplay(evaluationKey(LISTING_1_SOURCE.key)).latest === null) {
    queueEvaluation(loaded.source, loaded.factorList, DEFAULT_SEED, "reference run (first view)");
  }
  return evaluationView(loaded.source);
}
