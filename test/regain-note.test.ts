import { createElement } from "react";
import { renderToStaticMarkup } from "react-dom/server";
import { describe, expect, it } from "vitest";
import type { TRegainGap } from "../router-core/index";
import { RegainNote } from "../components/why/regain-note";

const text = (gaps: TRegainGap[]) => renderToStaticMarkup(createElement(RegainNote, { gaps })).replace(/<[^>]+>/g, "");

/** Issue 42's A at 1,130 s, as the controller now records it: 29 samples at the 1% floor of 10 decisions a second. */
const waiting: TRegainGap = {
  provider: "provider_A",
  leader: "provider_B",
  score: 96.2,
  leaderScore: 97.58,
  margin: 0,
  needs: 1.38,
  trusted: false,
  samples: 29,
  samplesNeeded: 52,
  probeShare: 0.01,
  callsPerMinute: 6,
  phase: "waiting",
  reconsiderAt: null,
};

describe("Why page: regain note", () => {
  it("a former primary short of the leader's score: points, samples, probe rate, when it is reconsidered; not called policy", () => {
    const t = text([waiting]);
    expect(t).toContain("provider_A needs +1.4 points over provider_B to regain traffic: it ranks above provider_B, so scoring level with it is enough");
    expect(t).toContain("It is probed at 1% of the traffic (about 6 calls a minute); it has 29 of the 52 samples that would prove its recovery.");
    expect(t).toContain("It is reconsidered at every controller tick");
    expect(t).not.toContain("policy, not a failure");
  });

  it("a provider the leader outranks: the hysteresis margin, which is policy", () => {
    const t = text([{ ...waiting, provider: "provider_B", leader: "provider_A", margin: 3.5, needs: 5.25, trusted: true, samples: 400, samplesNeeded: 200 }]);
    expect(t).toContain("provider_B needs +5.3 points over provider_A to regain traffic: the hysteresis margin 3.5 applies");
    expect(t).toContain("its 400 samples are enough.");
    expect(t).toContain("policy, not a failure");
  });

  it("a recovering provider in its cooldown: its probe, what its samples lack, and when failback can start", () => {
    const at = Date.UTC(2026, 11, 4, 21, 14, 5);
    const t = text([{ ...waiting, needs: -2.1, phase: "cooldown", reconsiderAt: at, probeShare: 0.0606, callsPerMinute: 36.4, samples: 20 }]);
    expect(t).toContain("provider_A looks recovered and is on its way back from provider_B.");
    expect(t).toContain("It is probed at 6.1% of the traffic (about 36.4 calls a minute); it has 20 of the 52 samples");
    expect(t).toContain("Failback can start at 21:14:05 UTC (end of the cooldown) once its samples prove it, then moves at the capped rate.");
    // Already proven: only the cooldown's end is left.
    const proven = text([{ ...waiting, needs: -2.1, phase: "cooldown", reconsiderAt: at, trusted: true, samples: 245 }]);
    expect(proven).toContain("its 245 samples are enough. Failback can start at 21:14:05 UTC (end of the cooldown), then moves at the capped rate.");
  });

  it("renders nothing when nobody is short and nobody is recovering", () => {
    expect(text([])).toBe("");
    expect(text([{ ...waiting, needs: -1 }])).toBe("");
  });
});
