import { describe, expect, it } from "vitest";
import { rollupSegments, type TRollupSegment } from "./counts";

const MIN = 60_000;
const HOUR = 60 * MIN;
// 21:17 and, 7 days later, 21:53: neither end on a 10-minute or hour boundary.
const FROM = Date.UTC(2026, 10, 28, 21, 17);
const TO = FROM + 7 * 24 * HOUR + 36 * MIN;

/** The segments cover [from, to) exactly, in order, each aligned to its own width. */
function expectTiling(segments: TRollupSegment[], from: number, to: number) {
  let at = from;
  for (const s of segments) {
    expect(s.from).toBe(at);
    expect(s.to).toBeGreaterThan(s.from);
    expect(s.from % (s.minutes * MIN)).toBe(0);
    expect(s.to % (s.minutes * MIN)).toBe(0);
    at = s.to;
  }
  expect(at).toBe(to);
}

describe("rollupSegments: whole minutes as the coarsest periods that nest in the buckets", () => {
  it("a week of hourly buckets is one run of hours, with 10-minute and minute cells only at the ends", () => {
    const s = rollupSegments(FROM, TO, HOUR);
    expectTiling(s, FROM, TO);
    expect(s.map((x) => x.minutes)).toEqual([1, 10, 60, 10, 1]);
    expect(s.find((x) => x.minutes === 60)).toEqual({ minutes: 60, from: FROM + 43 * MIN, to: TO - 53 * MIN });
    // Periods read per combination of dimensions: 3 + 4 + 167 + 5 + 3, not 10,116 minutes.
    expect(s.reduce((n, x) => n + (x.to - x.from) / (x.minutes * MIN), 0)).toBe(182);
  });

  it("10-minute buckets (the 24 h charts) use no hour cells: an hour does not fit in one of them", () => {
    const s = rollupSegments(FROM, FROM + 24 * HOUR, 10 * MIN);
    expectTiling(s, FROM, FROM + 24 * HOUR);
    expect(s.map((x) => x.minutes)).toEqual([1, 10, 1]);
  });

  it("per-minute buckets read minute cells only; buckets a tier does not divide skip that tier", () => {
    expect(rollupSegments(FROM, TO, MIN)).toEqual([{ minutes: 1, from: FROM, to: TO }]);
    expect(rollupSegments(FROM, TO, 5 * MIN)).toEqual([{ minutes: 1, from: FROM, to: TO }]);
    expect(rollupSegments(FROM, TO, 30 * MIN).map((x) => x.minutes)).toEqual([1, 10, 1]);
    expect(rollupSegments(FROM, TO, 2 * HOUR).map((x) => x.minutes)).toEqual([1, 10, 60, 10, 1]);
  });

  it("without buckets every tier is used; ends on a boundary need no finer cells; short ranges stay minutes", () => {
    const from = Date.UTC(2026, 10, 28, 21);
    expect(rollupSegments(from, from + 3 * HOUR, null)).toEqual([{ minutes: 60, from, to: from + 3 * HOUR }]);
    expect(rollupSegments(from + 10 * MIN, from + 3 * HOUR, null)).toEqual([
      { minutes: 10, from: from + 10 * MIN, to: from + HOUR },
      { minutes: 60, from: from + HOUR, to: from + 3 * HOUR },
    ]);
    expect(rollupSegments(from + MIN, from + 9 * MIN, null)).toEqual([{ minutes: 1, from: from + MIN, to: from + 9 * MIN }]);
    expect(rollupSegments(from, from, HOUR)).toEqual([]);
  });
});
