import "server-only";
import { traceKey, getReplay } from "@/lib/replay";
import type { TPolicyId, TScenarioId, TTraceMinute } from "@/router-core/replay";
import { evaluationKey, evaluationResultOf } from "./evaluation-jobs";

/** One run's per-minute trace from a source's last evaluation; null when there is none. */
export function getEvaluationTrace(sourceKey: string, scenario: TScenarioId, policy: TPolicyId): { fingerprint: string; trace: TTraceMinute[] } | null {
  const { lastDone } = getReplay(evaluationKey(sourceKey));
  const trace = evaluationResultOf(lastDone)?.traces[traceKey(scenario, policy)];
  return lastDone && trace ? { fingerprint: lastDone.fingerprint, trace } : null;
}
