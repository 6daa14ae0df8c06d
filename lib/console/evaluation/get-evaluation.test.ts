import { describe, expect, it } from "vitest";
import { getReplay } from "../../replay/replay-runner";
import { evaluationKey } from "./evaluation-jobs";
import { LISTING_1_SOURCE } from "./evaluation-sources";
import { getEvaluation } from "./get-evaluation";

async function settled(timeoutMs = 150_000) {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const job = getReplay(evaluationKey(LISTING_1_SOURCE.key)).latest!;
    if (job.state === "done" || job.state === "failed") return job;
    if (Date.now() > deadline) throw new Error(`Listing 1 still ${job.state} after ${timeoutMs} ms`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

describe("getEvaluation of the paper's Listing 1", { timeout: 180_000 }, () => {
  it("never starts a run for a reader without evaluation.run, starts one for the first reader with it, then shows its result to everyone", async () => {
    const asViewer = await getEvaluation(LISTING_1_SOURCE.key, { canRun: false });
    expect(asViewer.status).toBeNull();
    expect(asViewer.result).toBeNull();
    expect(getReplay(evaluationKey(LISTING_1_SOURCE.key)).latest).toBeNull();

    const asAuthor = await getEvaluation(LISTING_1_SOURCE.key, { canRun: true });
    expect(asAuthor.status?.state).toMatch(/^(queued|running)$/);
    const job = await settled();
    expect(job.state).toBe("done");
    expect(job.requestedBy).toBe("reference run (first view)");

    const later = await getEvaluation(LISTING_1_SOURCE.key, { canRun: false });
    expect(later.status?.state).toBe("done");
    expect(later.result?.seed).toBe(42);
    // Already evaluated: a second reader with the permission does not queue it again.
    await getEvaluation(LISTING_1_SOURCE.key, { canRun: true });
    expect(getReplay(evaluationKey(LISTING_1_SOURCE.key)).latest).toBe(job);
  });
});
