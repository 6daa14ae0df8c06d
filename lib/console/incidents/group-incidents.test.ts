import { describe, expect, it } from "vitest";
import { groupIncidents } from "./group-incidents";
import type { TShiftEvent } from "../types";

const T0 = Date.UTC(2026, 11, 3, 12, 0, 0);
let nextId = 1;

function ev(sec: number, type: string, from: Record<string, number>, to: Record<string, number>, over: Partial<TShiftEvent> = {}): TShiftEvent {
  return {
    id: String(nextId++),
    at: T0 + sec * 1000,
    operation: "SEND_SMS",
    region: "EU",
    type,
    provider: "provider_A",
    leaderFrom: "provider_A",
    leaderTo: "provider_B",
    sharesFrom: from,
    sharesTo: to,
    capped: true,
    detail: `${type} at ${sec}s`,
    evidence: [{ provider: "provider_A", eligible: false, score: null, sampleCount: 40, failedGates: ["circuit_open"], metrics: { consecutiveFailures: 5 } }],
    policyVersion: "v1",
    ...over,
  };
}

/** An outage: 57 capped shift ticks 2 s apart moving A from 80% to 5%, then recovery and failback. */
function outage(): TShiftEvent[] {
  const events: TShiftEvent[] = [];
  let a = 0.8;
  for (let i = 0; i < 57; i++) {
    const next = Math.max(0.05, a - 0.0135);
    events.push(ev(i * 2, "circuit_open_shift_to_secondary", { provider_A: a, provider_B: 1 - a }, { provider_A: next, provider_B: 1 - next }));
    a = next;
  }
  events.push(ev(200, "recovery_detected", { provider_A: a, provider_B: 1 - a }, { provider_A: a, provider_B: 1 - a }));
  events.push(ev(210, "cooldown_started", { provider_A: a, provider_B: 1 - a }, { provider_A: a, provider_B: 1 - a }));
  events.push(ev(300, "failback_step", { provider_A: a, provider_B: 1 - a }, { provider_A: 0.5, provider_B: 0.5 }));
  events.push(ev(360, "full_failback_completed", { provider_A: 0.5, provider_B: 0.5 }, { provider_A: 0.8, provider_B: 0.2 }));
  return events;
}

describe("groupIncidents", () => {
  it("turns one outage's flood of tick events into one incident with start, end and movers", () => {
    const events = outage().reverse();
    const [incident, ...rest] = groupIncidents(events, T0 + 3_600_000);
    expect(rest).toHaveLength(0);
    expect(incident).toMatchObject({
      operation: "SEND_SMS",
      regions: ["EU"],
      start: T0,
      end: T0 + 360_000,
      durationMs: 360_000,
      resolved: true,
      recoverySteps: 2,
      failbackSteps: 2,
      trigger: { type: "circuit_open_shift_to_secondary", provider: "provider_A" },
    });
    expect(incident!.events).toHaveLength(61);
    expect(incident!.events[0]!.at).toBe(T0);
    expect(incident!.losing.map((l) => l.provider)).toEqual(["provider_A"]);
    expect(incident!.losing[0]!.lowest).toBeCloseTo(0.05);
    expect(incident!.gaining).toEqual([{ provider: "provider_B", from: expect.closeTo(0.2), highest: expect.closeTo(0.95) }]);
    expect(incident!.trigger.evidence?.metrics).toEqual({ consecutiveFailures: 5 });
    // The failback's two steps (0.45 then 0.30) fall within 60 s and outweigh 31 outage ticks of 1.35 points.
    expect(incident!.peakShiftPerMinute).toBeCloseTo(0.75, 3);
    expect(
      groupIncidents(
        events.filter((e) => e.type.startsWith("circuit")),
        T0,
      )[0]!.peakShiftPerMinute,
    ).toBeCloseTo(31 * 0.0135, 3);
  });

  it("splits events further apart than the gap, and after a completed failback", () => {
    const first = outage();
    const later = ev(400, "score_decay_shift", { provider_A: 0.8, provider_B: 0.2 }, { provider_A: 0.7, provider_B: 0.3 });
    const muchLater = ev(2000, "score_decay_shift", { provider_A: 0.7, provider_B: 0.3 }, { provider_A: 0.6, provider_B: 0.4 });
    const incidents = groupIncidents([...first, later, muchLater], T0 + 2010_000);
    expect(incidents.map((i) => [i.start - T0, i.end - T0, i.resolved])).toEqual([
      [2_000_000, 2_000_000, false],
      [400_000, 400_000, true],
      [0, 360_000, true],
    ]);
  });

  it("keeps operations apart and merges regions of one operation", () => {
    const a = ev(0, "circuit_open_shift_to_secondary", { provider_A: 1 }, { provider_A: 0.9, provider_B: 0.1 });
    const b = ev(4, "circuit_open_shift_to_secondary", { provider_A: 1 }, { provider_A: 0.9, provider_B: 0.1 }, { region: "APAC" });
    const c = ev(6, "score_decay_shift", { provider_X: 1 }, { provider_X: 0.5, provider_Y: 0.5 }, { operation: "LLM_CHAT" });
    const incidents = groupIncidents([a, b, c], T0 + 10_000);
    expect(incidents.map((i) => [i.operation, i.regions, i.events.length, i.resolved])).toEqual([
      ["LLM_CHAT", ["EU"], 1, false],
      ["SEND_SMS", ["APAC", "EU"], 2, false],
    ]);
    expect(incidents[0]!.gaining).toEqual([{ provider: "provider_Y", from: 0, highest: 0.5 }]);
  });

  it("triggers an incident on its first cause, not on a routine event just before it", () => {
    const floor = ev(-60, "probe_floor_restored", { provider_A: 1 }, { provider_A: 0.95, provider_B: 0.05 }, { provider: "provider_B" });
    const incidents = groupIncidents([floor, ...outage()], T0 + 3_600_000);
    expect(incidents.map((i) => [i.start - T0, i.routine, i.trigger.type, i.trigger.provider])).toEqual([
      [0, false, "circuit_open_shift_to_secondary", "provider_A"],
      [-60_000, true, "probe_floor_restored", "provider_B"],
    ]);
    expect(incidents[0]!.events).toHaveLength(61);
  });

  it("keeps unrelated providers failing in different regions apart, and a cascade in one region together", () => {
    const a = ev(0, "circuit_open_shift_to_secondary", { provider_A: 1 }, { provider_A: 0.9, provider_B: 0.1 });
    const c = ev(60, "hard_exclusion", { provider_C: 1 }, { provider_D: 1 }, { region: "APAC", provider: "provider_C" });
    const cascade = ev(
      90,
      "circuit_open_shift_to_secondary",
      { provider_A: 0.9, provider_B: 0.1 },
      { provider_A: 0.9, provider_B: 0, provider_E: 0.1 },
      { provider: "provider_B" },
    );
    const aApac = ev(120, "circuit_open_shift_to_secondary", { provider_A: 1 }, { provider_A: 0.9, provider_D: 0.1 }, { region: "APAC" });
    const failbackApac = ev(200, "failback_step", { provider_C: 0 }, { provider_C: 0.5 }, { region: "APAC", provider: "provider_C" });
    const incidents = groupIncidents([a, c, cascade, aApac, failbackApac], T0 + 300_000);
    expect(incidents.map((i) => [i.trigger.provider, i.regions, i.events.map((e) => e.id)])).toEqual([
      ["provider_C", ["APAC"], [c.id, failbackApac.id]],
      ["provider_A", ["APAC", "EU"], [a.id, cascade.id, aApac.id]],
    ]);
  });
});
