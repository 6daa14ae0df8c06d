import { describe, expect, it } from "vitest";
import { listing1 } from "../../router-core/replay";
import { EVALUATION_RUNS } from "./evaluation";
import { fingerprintOf, getReplay, startReplay, type TReplayJob } from "./replay-runner";
import type { TRecordedTraffic } from "./what-if";

async function settled(key: string, timeoutMs = 120_000): Promise<TReplayJob> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const job = getReplay(key).latest!;
    if (job.state === "done" || job.state === "failed") return job;
    if (Date.now() > deadline) throw new Error(`${key} still ${job.state} after ${timeoutMs} ms`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

const recorded: TRecordedTraffic = {
  operation: "SEND_SMS",
  startMs: 0,
  providers: ["A", "B"],
  regions: ["EU"],
  requests: Array.from({ length: 10 }, () => [50]),
  selected: Array.from({ length: 10 }, () => [50, 0]),
  cells: Array.from({ length: 10 }, () => [[{ calls: 50, callFailures: 0, completions: 50, providerFailures: 0, p95Ms: 380 }], [null]]),
};

describe("replay runner", { timeout: 180_000 }, () => {
  it("runs an evaluation on a worker thread while this thread stays responsive, then answers the same inputs from the cache", async () => {
    const fl = listing1();
    const fp = fingerprintOf(["evaluation", fl, 42]);
    const { job, started } = startReplay("test:evaluation", fp, { kind: "evaluation", factorList: fl, seed: 42 }, "test", EVALUATION_RUNS);
    expect(started).toBe(true);
    expect(job.state).toBe("running");
    // The event loop keeps turning while the replay runs: the longest gap between 20 ms timers.
    let last = performance.now();
    let worstGap = 0;
    const timer = setInterval(() => {
      const now = performance.now();
      worstGap = Math.max(worstGap, now - last);
      last = now;
    }, 20);
    const done = await settled("test:evaluation");
    clearInterval(timer);
    expect(done.error).toBeNull();
    expect(done.state).toBe("done");
    const out = done.output!;
    if (out.kind !== "evaluation") throw new Error("expected an evaluation");
    expect(out.result.cells).toHaveLength(24);
    expect(out.result.sensitivity.rows.map((r) => r.id)).toEqual([
      "scen_01_baseline",
      "scen_02_comp_heavy",
      "scen_03_lat_heavy",
      "scen_04_low_cap",
      "scen_05_stale_delay",
    ]);
    expect(out.result.traces["outage/factor_list"]).toHaveLength(60);
    expect(done.progress).toEqual({ done: EVALUATION_RUNS, total: EVALUATION_RUNS, label: "done" });
    // Not a speed assertion: a replay on this thread would stall it for the whole run (seconds).
    expect(worstGap).toBeLessThan(out.result.elapsedMs);

    const again = startReplay("test:evaluation", fp, { kind: "evaluation", factorList: fl, seed: 42 }, "someone else", EVALUATION_RUNS);
    expect(again.started).toBe(false);
    expect(again.job).toBe(done);
  });

  it("runs a what-if and keeps the last good result when a later run fails", async () => {
    const fl = listing1();
    startReplay("test:what-if", "one", { kind: "what-if", factorList: fl, recorded, seed: 1 }, "test", 1);
    const ok = await settled("test:what-if");
    expect(ok.state).toBe("done");
    expect(ok.output?.kind).toBe("what-if");

    const wrongOperation = { ...fl, operation: "SEND_EMAIL" };
    startReplay("test:what-if", "two", { kind: "what-if", factorList: wrongOperation, recorded, seed: 1 }, "test", 1);
    const failed = await settled("test:what-if");
    expect(failed.state).toBe("failed");
    expect(failed.error).toContain("draft factor list is for SEND_EMAIL");
    expect(getReplay("test:what-if").lastDone).toBe(ok);
  });
});
