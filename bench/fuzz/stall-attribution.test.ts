import { describe, expect, it } from "vitest";
import { attributeProbes, isBusy, stallSummary } from "./stall-attribution";

const loop = {
  p99Ms: 12,
  maxMs: 300,
  stalls: [
    { at: 1_000, lateMs: 300, cpuMs: 290 }, // a request held the loop
    { at: 5_000, lateMs: 200, cpuMs: 10 }, // the process waited for a CPU
  ],
};

describe("stall attribution", () => {
  it("calls a stall busy when the process ran for most of it", () => {
    expect(loop.stalls.map(isBusy)).toEqual([true, false]);
  });

  it("attributes each slow probe to the server's busy loop, to the machine, or to neither", () => {
    const rows = attributeProbes(
      [
        { at: 1_050, ms: 260 },
        { at: 5_010, ms: 190 },
        { at: 9_000, ms: 150 },
      ],
      loop,
    );
    expect(rows.map((r) => r.cause)).toEqual(["server loop busy", "server process not running", "outside the server's loop"]);
    expect(rows[0]!.busyMs).toBe(250);
    expect(stallSummary(loop)).toEqual({ busyMaxMs: 300, idleMaxMs: 200, cpuMaxMs: 290, stalls: 2 });
  });
});
