import { describe, expect, it } from "vitest";
import { SCENARIOS, TRAFFIC } from "./scenarios";
import { generateTraffic, trafficFromCounts, trafficHash } from "./traffic";
import { createProviderRuntime, simulateCall } from "./model";

describe("scenario traffic", () => {
  const t = generateTraffic(TRAFFIC, 42);

  it("is pinned: the same seed gives the same traffic", () => {
    expect(t.at.length).toBe(36_000);
    expect(trafficHash(t)).toBe(trafficHash(generateTraffic(TRAFFIC, 42)));
    expect(trafficHash(t)).toMatchInlineSnapshot(`"9e998ac1"`);
    expect([t.region[0], t.region[1], t.region[2], t.region[35_999]]).toMatchInlineSnapshot(`
      [
        2,
        1,
        0,
        2,
      ]
    `);
    expect(t.uRoute[0]).toMatchInlineSnapshot(`0.5484905038028955`);
  });

  it("differs across seeds", () => {
    expect(trafficHash(generateTraffic(TRAFFIC, 43))).not.toBe(trafficHash(t));
  });

  it("spaces 600 requests per minute evenly and splits regions about 50/30/20", () => {
    expect(t.at[0]).toBe(50);
    expect(t.at[599]).toBeLessThan(60_000);
    expect(t.at[600]).toBeGreaterThanOrEqual(60_000);
    const counts = [0, 0, 0];
    for (const r of t.region) counts[r]!++;
    expect(counts[0]! / 36_000).toBeCloseTo(0.5, 1);
    expect(counts[1]! / 36_000).toBeCloseTo(0.3, 1);
    expect(counts[2]! / 36_000).toBeCloseTo(0.2, 1);
  });

  it("replays recorded counts per minute and region exactly", () => {
    const r = trafficFromCounts(
      ["EU", "NA"],
      [
        [3, 1],
        [0, 2],
      ],
      7,
    );
    expect(Array.from(r.region)).toEqual([0, 0, 1, 0, 1, 1]);
    expect(Array.from(r.at)).toEqual([7500, 22_500, 37_500, 52_500, 75_000, 105_000]);
  });
});

describe("scenario providers", () => {
  it("A's outage fails every call from minute 20 to 40 and nothing else", () => {
    const m = SCENARIOS.outage.model;
    const rt = createProviderRuntime(m);
    expect(simulateCall(m, rt, 0, 0, 20, 0.999, 0.5, 0).ok).toBe(false);
    expect(simulateCall(m, rt, 0, 0, 19, 0.5, 0.5, 0).ok).toBe(true);
    expect(simulateCall(m, rt, 1, 0, 25, 0.5, 0.5, 0).ok).toBe(true);
  });

  it("quota: A answers 300 calls a minute inside the window, then 429", () => {
    const m = SCENARIOS.quota.model;
    const rt = createProviderRuntime(m);
    let throttled = 0;
    for (let i = 0; i < 600; i++) if (simulateCall(m, rt, 0, i % 3, 14, 0.9, 0.5, 0).kind === "throttled") throttled++;
    expect(throttled).toBe(300);
    expect(simulateCall(m, rt, 0, 0, 15, 0.9, 0.5, 0).kind).toBe("ok");
  });

  it("regional failure hits A in EU only; partial degradation answers 200 and fails the business outcome", () => {
    const r = SCENARIOS.regional.model;
    const rt = createProviderRuntime(r);
    expect(simulateCall(r, rt, 0, 0, 30, 0.9, 0.5, 0).ok).toBe(false);
    expect(simulateCall(r, rt, 0, 1, 30, 0.9, 0.5, 0).ok).toBe(true);
    const p = SCENARIOS.partial.model;
    const res = simulateCall(p, createProviderRuntime(p), 0, 0, 30, 0.9, 0.1, 0);
    expect(res).toMatchObject({ ok: true, completed: false, exposed: true });
  });
});
