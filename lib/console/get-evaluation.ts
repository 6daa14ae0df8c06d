import "server-only";
import { ControlPlaneError } from "@/lib/controlplane/errors";
import { getReplay } from "@/lib/replay/replay-runner";
import { DEFAULT_SEED, evaluationKey, evaluationView, queueEvaluation } from "./evaluation-jobs";
import { LISTING_1_SOURCE, loadEvaluationSource } from "./evaluation-sources";
import type { TEvaluationView } from "./evaluation-types";

/**
 * The evaluation of a source for the page and its polling. The paper's Listing 1 is the
 * reference every reader compares against, so its first view queues it (once per process: the
 * run is deterministic and cached); every other source runs only when someone with
 * evaluation.run asks.
 */
export async function getEvaluation(sourceKey: string): Promise<TEvaluationView> {
  const loaded = await loadEvaluationSource(sourceKey);
  if (!loaded) throw new ControlPlaneError(404, "not_found", `no factor-list version ${sourceKey}`, [{ path: "version", message: `unknown version "${sourceKey}"` }]);
  if (loaded.source.key === LISTING_1_SOURCE.key && "factorList" in loaded && getReplay(evaluationKey(LISTING_1_SOURCE.key)).latest === null) {
    queueEvaluation(loaded.source, loaded.factorList, DEFAULT_SEED, "reference run (first view)");
  }
  return evaluationView(loaded.source);
}
