import { describe, expect, it } from "vitest";
import { summarise, type TProfile } from "./profile-summary";

/**
 * A profile of five frames: root, the reference's handler under it, node's http under that, the
 * decide handler, and idle. Samples every 100 µs from startTime 1,000,000: boot (root), then the
 * reference's handler, then http, then idle.
 */
const ROOT = "file:///repo";
const frame = (id: number, functionName: string, url: string, children: number[] = []) => ({ id, callFrame: { functionName, url, lineNumber: 0 }, children });
const PROFILE: TProfile = {
  nodes: [
    frame(1, "(root)", "", [2, 5, 6]),
    frame(2, "handle", `${ROOT}/bench/api/bench-api-reference.ts`, [3]),
    frame(3, "writeHead", "node:_http_server"),
    frame(5, "(idle)", ""),
    frame(6, "boot", `${ROOT}/server.ts`),
  ],
  startTime: 1_000_000,
  // boot ×3, handler ×4, http ×4, idle ×2
  samples: [6, 6, 6, 2, 2, 2, 2, 3, 3, 3, 3, 5, 5],
  timeDeltas: [0, ...new Array<number>(12).fill(100)],
};

describe("summarise", () => {
  it("counts from the first sample under the handler named by start, boot left out", () => {
    const s = summarise(PROFILE, "/repo", 2, 5, { start: "bench/api/bench-api-reference.ts" });
    const stage = (name: string) => s.stages.find((x) => x.stage === name);
    expect(stage("the reference's handler")?.usPerDecide).toBe(200);
    // Each sample carries the time to the next one: 100 µs each for the four http samples.
    expect(stage("node: http, sockets, streams")?.ms).toBeCloseTo(0.4);
    expect(stage("other project code")).toBeUndefined();
  });

  it("counts only samples within the window, on the profile's own clock", () => {
    // Samples at 1,000,000 + 100·i: the window holds i = 5…8 (two handler samples, two http).
    const s = summarise(PROFILE, "/repo", 1, 5, { start: "bench/api/bench-api-reference.ts", window: { fromUs: 1_000_500, toUs: 1_000_800 } });
    const ms = Object.fromEntries(s.stages.map((x) => [x.stage, x.ms]));
    expect(ms).toEqual({ "the reference's handler": 0.2, "node: http, sockets, streams": 0.2 });
  });

  it("without a handler of that name, counts the whole profile", () => {
    const s = summarise(PROFILE, "/repo", null, 5, { start: "lib/dataplane/decide/handler.ts" });
    expect(s.stages.find((x) => x.stage === "other project code")?.ms).toBeCloseTo(0.3);
  });
});
