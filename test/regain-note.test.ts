import { createElement } from "react";
import { renderToStaticMarkup } from "react-dom/server";
import { describe, expect, it } from "vitest";
import { RegainNote } from "../components/why/regain-note";

describe("Why page: regain note", () => {
  it("says in one sentence what a displaced leader needs over the current one, and the margin", () => {
    const html = renderToStaticMarkup(
      createElement(RegainNote, {
        gaps: [
          { provider: "provider_A", leader: "provider_C", score: 88.26, leaderScore: 90.01, margin: 3.5, needs: 5.25, trusted: true },
          { provider: "provider_B", leader: "provider_C", score: 95, leaderScore: 90.01, margin: 3.5, needs: -1.49, trusted: false },
        ],
      }),
    );
    const text = html.replace(/<[^>]+>/g, "");
    expect(text).toContain("provider_A needs +5.3 points over provider_C to regain traffic (hysteresis margin 3.5).");
    expect(text).toContain("this is policy, not a failure");
    // A provider that already leads by the margin is not short of it (only its samples may be).
    expect(text).not.toContain("provider_B needs");
  });

  it("renders nothing when nobody is short of the margin", () => {
    expect(renderToStaticMarkup(createElement(RegainNote, { gaps: [] }))).toBe("");
  });
});
