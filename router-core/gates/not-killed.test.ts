import { describe, expect, it } from "vitest";
import { gateInput } from "./gate-input.fixture";
import { notKilled } from "./not-killed";

describe("not_killed", () => {
  it("passes an enabled provider", () => {
    expect(notKilled(gateInput())).toEqual({ gate: "not_killed", passed: true, detail: "provider enabled" });
  });

  it("fails a killed provider, even an enabled one, and a disabled one", () => {
    expect(notKilled(gateInput({ killed: true }))).toEqual({ gate: "not_killed", passed: false, detail: "provider killed by operator override" });
    expect(notKilled(gateInput({ killed: true }, { enabled: false })).detail).toBe("provider killed by operator override");
    expect(notKilled(gateInput({}, { enabled: false }))).toEqual({ gate: "not_killed", passed: false, detail: "provider disabled in the catalog" });
  });
});
