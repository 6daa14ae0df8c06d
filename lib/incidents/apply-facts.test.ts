import { describe, expect, it } from "vitest";
import { applyFacts, working } from "./apply-facts";
import { incidentHoldsEvent } from "./list-incidents";
import type { TBreakerFact, TEvidenceEntry, TOverrideFact, TShiftFact } from "./types";

const T0 = Date.parse("2026-12-04T18:50:00Z");
const s = (sec: number) => T0 + sec * 1000;

function ids() {
  let n = 0;
  return { newId: () => `id-${++n}` };
}

function ev(provider: string, regional: { samples: number; failures: number } | null = null): TEvidenceEntry {
  return { provider, eligible: true, score: 1, sampleCount: regional?.samples ?? 0, regional, failedGates: [], metrics: {} };
}

let nextShift = 100;
function shift(
  at: number,
  type: string,
  provider: string | null,
  from: Record<string, number>,
  to: Record<string, number>,
  extra: Partial<TShiftFact> = {},
): TShiftFact {
  return {
    kind: "shift",
    id: String(++nextShift),
    at,
    operation: "SEND_SMS",
    region: "EU",
    type,
    provider,
    sharesFrom: from,
    sharesTo: to,
    capped: true,
    detail: `${type} detail`,
    evidence: [ev("provider_A", { samples: 200, failures: 2 }), ev("provider_B", { samples: 50, failures: 0 })],
    ...extra,
  };
}

function breaker(at: number, to: string, extra: Partial<TBreakerFact> = {}): TBreakerFact {
  return {
    kind: "breaker",
    id: String(at),
    at,
    provider: "provider_A",
    region: "EU",
    from: to === "open" ? "closed" : "open",
    to,
    reason: "consecutive_failures",
    detail: "5 consecutive failures, last: timeout",
    scopes: [{ operation: "SEND_SMS", region: "EU", share: 0.99 }],
    ...extra,
  };
}

/** Version 2 of SEND_SMS activated for EU at `at`. */
const activationAt = (at: number) => ({
  kind: "activation" as const,
  seq: 1,
  at,
  operation: "SEND_SMS",
  version: 2,
  actor: "approver@example.com",
  scopes: [{ operation: "SEND_SMS", region: "EU" }],
});

/** The chaos outage of provider_A on SEND_SMS·EU as the facts arrive, with a routine score shift before it. */
function outage() {
  return [
    // The controller out-scores a healthy provider_A 45 s before the fault: routine, not the cause.
    shift(s(156), "score_decay_shift", "provider_A", { provider_A: 0.99, provider_B: 0.01 }, { provider_A: 0.95, provider_B: 0.05 }),
    breaker(s(203), "open"),
    shift(s(205), "circuit_open_shift_to_secondary", "provider_A", { provider_A: 0.99, provider_B: 0.01 }, { provider_A: 0.7, provider_B: 0.3 }),
    shift(s(235), "circuit_open_shift_to_secondary", "provider_A", { provider_A: 0.7, provider_B: 0.3 }, { provider_A: 0.4, provider_B: 0.6 }),
    shift(s(265), "circuit_open_shift_to_secondary", "provider_A", { provider_A: 0.4, provider_B: 0.6 }, { provider_A: 0.1, provider_B: 0.9 }),
    shift(s(295), "probe_floor_held", "provider_A", { provider_A: 0.1, provider_B: 0.9 }, { provider_A: 0.01, provider_B: 0.99 }),
    breaker(s(330), "half_open"),
    breaker(s(335), "closed", { from: "half_open" }),
    shift(s(478), "recovery_detected", "provider_A", { provider_A: 0.01, provider_B: 0.99 }, { provider_A: 0.05, provider_B: 0.95 }),
    shift(s(480), "cooldown_started", "provider_A", { provider_A: 0.05, provider_B: 0.95 }, { provider_A: 0.05, provider_B: 0.95 }),
    shift(s(600), "failback_step", "provider_A", { provider_A: 0.05, provider_B: 0.95 }, { provider_A: 0.5, provider_B: 0.5 }),
    shift(s(630), "full_failback_completed", "provider_A", { provider_A: 0.5, provider_B: 0.5 }, { provider_A: 0.99, provider_B: 0.01 }),
  ];
}

describe("applyFacts", () => {
  it("opens one incident at the breaker's opening, not at the routine score shift before it, and closes it at failback", () => {
    const [w, ...rest] = applyFacts([], outage(), s(1000), ids());
    expect(rest).toHaveLength(0);
    expect(w!.record).toMatchObject({
      causeKind: "breaker_open",
      provider: "provider_A",
      causeDetail: "5 consecutive failures, last: timeout",
      startedAt: s(203),
      recoveredAt: s(478),
      failbackDoneAt: s(630),
      endedAt: s(630),
      endReason: "failback_done",
      state: "resolved",
      severity: "critical",
    });
    expect(w!.record.title).toBe("provider_A breaker open · SEND_SMS · EU");
    expect(w!.newFacts.map((f) => f.summary)).toEqual([
      "provider_A EU breaker closed → open: 5 consecutive failures, last: timeout",
      "provider_A EU breaker open → half_open: 5 consecutive failures, last: timeout",
      "provider_A EU breaker half_open → closed: 5 consecutive failures, last: timeout",
    ]);
  });

  it("compresses controller ticks into steps: away, recovery, failback", () => {
    const [w] = applyFacts([], outage(), s(1000), ids());
    expect(w!.newSteps.map((x) => [x.phase, x.ticks, x.sharesFrom.provider_A, x.sharesTo.provider_A])).toEqual([
      ["away", 4, 0.99, 0.01],
      ["recovery", 2, 0.01, 0.05],
      ["failback", 2, 0.05, 0.99],
    ]);
  });

  it("continues the stored last step on the next run instead of adding a step per tick", () => {
    const facts = outage();
    const [first] = applyFacts([], facts.slice(0, 4), s(240), ids());
    const stored = working(first!.record, first!.newSteps.at(-1)!);
    const [second] = applyFacts([stored], facts.slice(4, 6), s(300), ids());
    expect(second!.newSteps).toHaveLength(0);
    expect(second!.extended).toBe(true);
    expect(second!.lastStep).toMatchObject({ ticks: 4, sharesTo: { provider_A: 0.01, provider_B: 0.99 } });
    expect(second!.changes).toEqual([]);
  });

  it("takes the cause back to a breaker opening read after the shift it caused", () => {
    const facts = outage().filter((f) => f.kind !== "breaker" && f.type !== "score_decay_shift");
    const [first] = applyFacts([], facts.slice(0, 1), s(206), ids());
    expect(first!.record).toMatchObject({ causeKind: "breaker_open", startedAt: s(205), causeSource: expect.stringMatching(/^shift_event:/) });
    const [second] = applyFacts([working(first!.record, first!.newSteps[0]!)], [breaker(s(203), "open")], s(208), ids());
    expect(second!.record).toMatchObject({ causeKind: "breaker_open", startedAt: s(203), causeSource: `breaker_event:${s(203)}` });
    expect(second!.changes).toContain("cause");
  });

  it("opens an incident for a score shift only when the demoted provider crossed the failure-rate threshold", () => {
    const routine = shift(s(10), "score_decay_shift", "provider_A", { provider_A: 0.99 }, { provider_A: 0.9 });
    expect(applyFacts([], [routine], s(20), ids())).toEqual([]);
    const degraded = shift(
      s(10),
      "score_decay_shift",
      "provider_A",
      { provider_A: 0.99 },
      { provider_A: 0.9 },
      { evidence: [ev("provider_A", { samples: 100, failures: 45 })] },
    );
    const [w] = applyFacts([], [degraded], s(20), ids());
    expect(w!.record.causeKind).toBe("metric_threshold");
    expect(w!.record.causeDetail).toContain("failure rate 45% over 100 calls > threshold 30%");
  });

  it("keeps unrelated providers in different regions apart", () => {
    const apac = breaker(s(5), "open", { provider: "provider_C", region: "APAC", scopes: [{ operation: "SEND_SMS", region: "APAC", share: 0.9 }] });
    const out = applyFacts([], [breaker(s(1), "open"), apac], s(10), ids());
    expect(out.map((w) => [w.record.region, w.record.provider])).toEqual([
      ["EU", "provider_A"],
      ["APAC", "provider_C"],
    ]);
  });

  it("an operator's pin opens a change incident that ends with the pin, and a fault during it opens its own", () => {
    const pin = (action: "create" | "end", at: number): TOverrideFact => ({
      kind: "override",
      seq: at,
      at,
      action,
      overrideId: "o1",
      overrideKind: "provider_pin",
      provider: "provider_B",
      actor: "oncall@example.com",
      reason: "drill",
      expiresAt: null,
      scopes: [{ operation: "SEND_SMS", region: "EU" }],
    });
    const out = applyFacts([], [pin("create", s(1)), breaker(s(2), "open"), pin("end", s(3))], s(10), ids());
    expect(out.map((w) => [w.record.causeKind, w.record.endReason])).toEqual([
      ["provider_pin", "override_ended"],
      ["breaker_open", null],
    ]);
  });

  it("says what changed for notifications: opened once, then updates on new steps and recovery", () => {
    const facts = outage();
    const [opened] = applyFacts([], facts.slice(0, 3), s(210), ids());
    expect(opened!.opened).toBe(true);
    const [later] = applyFacts([working(opened!.record, opened!.newSteps.at(-1)!)], facts.slice(8, 10), s(490), ids());
    expect(later!.opened).toBe(false);
    expect(later!.changes).toEqual(["step:recovery", "recovered"]);
  });

  it("keeps a policy activation as an incident only when traffic moved after it, until the moves settle", () => {
    const activation = activationAt(s(0));
    const [quiet] = applyFacts([], [activation], s(120), ids());
    expect(quiet!.record).toMatchObject({ causeKind: "policy_activation", severity: "info", endReason: "settled" });
    expect(quiet!.discard).toBe(true);
    const rebalance = shift(s(5), "rebalance", "provider_B", { provider_A: 0.99, provider_B: 0.01 }, { provider_A: 0.9, provider_B: 0.1 });
    const [moved] = applyFacts([], [activation, rebalance], s(30), ids());
    expect(moved!.record.endedAt).toBeNull();
    const [settled] = applyFacts([working(moved!.record, moved!.newSteps[0]!)], [], s(90), ids());
    expect(settled!.record).toMatchObject({ endedAt: s(5), endReason: "settled" });
    expect(settled!.discard).toBeUndefined();
  });
  it("an activation still settling when a fault opens its own: each incident holds only the moves it took in", () => {
    const activation = activationAt(s(0));
    const floor = shift(s(180), "probe_floor_restored", "provider_B", { provider_A: 1, provider_B: 0 }, { provider_A: 0.95, provider_B: 0.05 });
    const fault = outage().slice(1, 4);
    const out = applyFacts([], [activation, floor, ...fault], s(236), ids());
    expect(out.map((w) => [w.record.causeKind, w.record.endedAt])).toEqual([
      ["policy_activation", null],
      ["breaker_open", null],
    ]);
    // Both are live over the fault's first moves: by time alone each would show the other's.
    const ranges = (w: (typeof out)[number]) =>
      w.newSteps.map((x) => ({ phase: x.phase, provider: x.provider, first: BigInt(x.firstEvent), last: BigInt(x.lastEvent) }));
    const held = (w: (typeof out)[number]) => [floor, ...fault].filter((f) => f.kind === "shift" && incidentHoldsEvent(ranges(w), f)).map((f) => f.at);
    expect(held(out[0]!)).toEqual([s(180)]);
    expect(held(out[1]!)).toEqual(fault.filter((f) => f.kind === "shift").map((f) => f.at));
  });
});
