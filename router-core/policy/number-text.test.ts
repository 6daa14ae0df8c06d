import { describe, expect, it } from "vitest";
import { durationText, numberText, valueText } from "./number-text";

describe("numberText", () => {
  it("drops binary floating-point noise", () => {
    expect(0.45 + 0.2 + 0.15 + 0.1 + 0.05).not.toBe(0.95);
    expect(numberText(0.45 + 0.2 + 0.15 + 0.1 + 0.05)).toBe("0.95");
    expect(numberText(0.1 + 0.2)).toBe("0.3");
    expect(numberText(1 - 0.9)).toBe("0.1");
  });

  it("keeps what a person wrote", () => {
    expect(numberText(3.5)).toBe("3.5");
    expect(numberText(200)).toBe("200");
    expect(numberText(0.000001)).toBe("0.000001");
    expect(numberText(1e-9)).toBe("1e-9");
    expect(numberText(-0.25)).toBe("-0.25");
    expect(numberText(Number.POSITIVE_INFINITY)).toBe("Infinity");
  });
});

describe("valueText", () => {
  it("formats numbers inside lists and maps, and leaves strings alone", () => {
    expect(valueText({ weight: 0.1 + 0.2, direction: "higher" })).toBe('{"weight":0.3,"direction":"higher"}');
    expect(valueText([0.1 + 0.2, "a"])).toBe('[0.3,"a"]');
    expect(valueText("compliance_allowed")).toBe("compliance_allowed");
    expect(valueText(undefined)).toBe("");
  });
});

describe("durationText", () => {
  it("says minutes and hours as people do", () => {
    expect(durationText(25)).toBe("25 min");
    expect(durationText(180)).toBe("3 h");
    expect(durationText(125)).toBe("2 h 5 min");
  });
});
