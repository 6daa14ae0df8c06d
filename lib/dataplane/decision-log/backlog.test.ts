import { describe, expect, it } from "vitest";
import { decisionIdAt } from "../decision-id";
import { BACKLOG_MAX_AGE_MS, mayBeSpooled } from "./backlog";

const NOW = 1_780_000_000_000;

describe("mayBeSpooled", () => {
  it("an id whose time falls in an announced range, with 5 s of clock slack", () => {
    const backlog = [{ oldest: NOW - 60_000, newest: NOW - 20_000 }];
    expect(mayBeSpooled(decisionIdAt(NOW - 40_000), backlog, null, NOW)).toBe(true);
    expect(mayBeSpooled(decisionIdAt(NOW - 64_000), backlog, null, NOW)).toBe(true);
    expect(mayBeSpooled(decisionIdAt(NOW - 66_000), backlog, null, NOW)).toBe(false);
    expect(mayBeSpooled(decisionIdAt(NOW - 10_000), backlog, null, NOW)).toBe(false);
    expect(mayBeSpooled(decisionIdAt(NOW - 40_000), [], null, NOW)).toBe(false);
  });

  it("unknown bounds cover any recent id; this instance's own outage counts as a range; old, future and non-v7 ids never", () => {
    const unknown = [{ oldest: null, newest: null }];
    expect(mayBeSpooled(decisionIdAt(NOW - 1_000), unknown, null, NOW)).toBe(true);
    expect(mayBeSpooled(decisionIdAt(NOW - BACKLOG_MAX_AGE_MS - 1_000), unknown, null, NOW)).toBe(false);
    expect(mayBeSpooled(decisionIdAt(NOW + 60_000), unknown, null, NOW)).toBe(false);
    expect(mayBeSpooled("0d3e4f5a-1b2c-4d5e-8f90-a1b2c3d4e5f6", unknown, null, NOW)).toBe(false);
    expect(mayBeSpooled("not-a-uuid", unknown, null, NOW)).toBe(false);
    const outage = { oldest: NOW - 90_000, newest: NOW - 30_000 };
    expect(mayBeSpooled(decisionIdAt(NOW - 50_000), [], outage, NOW)).toBe(true);
    expect(mayBeSpooled(decisionIdAt(NOW - 5_000), [], outage, NOW)).toBe(false);
    expect(mayBeSpooled(decisionIdAt(NOW - 5_000), [], { oldest: NOW - 90_000, newest: null }, NOW)).toBe(true);
  });
});
