import "server-only";
import { z } from "zod";
import { ContractError, invalid, parseInput } from "@/lib/errors";
import { ReplayBusyError } from "@/lib/replay";
import { evaluationView, queueEvaluation } from "./evaluation-jobs";
import { loadEvaluationSource } from "./evaluation-sources";
import type { TEvaluationView } from "./evaluation-types";

export const ZEvaluationRequest = z.strictObject({
  version: z.string({ error: 'version must be "listing1" or a factor-list version id' }).min(1, "version must not be empty"),
  seed: z
    .number({ error: "seed must be an integer" })
    .int("seed must be an integer")
    .min(0, "seed must be >= 0")
    .max(2_147_483_647, "seed must be <= 2147483647")
    .default(42),
});

/** Queues an evaluation of a version (or Listing 1) with a seed; answers with the view the page polls. */
export async function requestEvaluation(input: unknown, requestedBy: string): Promise<{ view: TEvaluationView; started: boolean }> {
  const req = parseInput(ZEvaluationRequest, input);
  const loaded = await loadEvaluationSource(req.version);
  if (!loaded) throw invalid([{ path: "version", message: `no factor-list version "${req.version}"` }]);
  if ("invalid" in loaded) throw invalid([{ path: "version", message: `${loaded.source.label} does not parse with today's schema: ${loaded.invalid}` }]);
  try {
    const { started } = queueEvaluation(loaded.source, loaded.factorList, req.seed, requestedBy);
    return { view: evaluationView(loaded.source), started };
  } catch (err) {
    if (err instanceof ReplayBusyError) throw new ContractError("busy", err.message, undefined, { status: 409 });
    throw err;
  }
}
