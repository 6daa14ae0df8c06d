import { describe, expect, it } from "vitest";
import { parseOverviewCookie, parseRange } from "./ranges";

describe("parseOverviewCookie", () => {
  it("reads the remembered operation, region and range", () => {
    expect(parseOverviewCookie("operation=SEND_SMS&region=EU&range=15m")).toEqual({ operation: "SEND_SMS", region: "EU", range: "15m" });
    expect(parseRange(parseOverviewCookie("range=7d").range)).toBe("7d");
  });

  it("ignores missing, oversized and unknown values", () => {
    expect(parseOverviewCookie(undefined)).toEqual({});
    expect(parseOverviewCookie("x".repeat(301))).toEqual({});
    expect(parseOverviewCookie(`operation=${"A".repeat(101)}&foo=1`)).toEqual({ operation: undefined, region: undefined, range: undefined });
    expect(parseRange(parseOverviewCookie("range=forever").range)).toBe("1h");
  });
});
