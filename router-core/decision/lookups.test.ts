import { describe, expect, it } from "vitest";
import { constantOutcome, type TGateOutcome } from "../gates/gate";
import { metricSnapshot } from "../gates/gate-input.fixture";
import { parseFactorList } from "../policy/codec";
import type { TProviderInfo, TRouterState } from "../types";
import { compilePolicy } from "./compile";
import { buildLookups, lookupsFor, sharedOutcomes } from "./lookups";

const provider = (key: string): TProviderInfo => ({ key, regions: ["EU"], complianceTags: [], costPerRequest: 0.01, credentialStatus: "valid", enabled: true });

function compiled() {
  const r = parseFactorList({ operation: "OP", providers: ["a", "b"] });
  if (!r.ok) throw new Error(JSON.stringify(r.errors));
  return compilePolicy(r.value);
}

function state(extra: Partial<TRouterState> = {}): TRouterState {
  return {
    providers: [provider("a"), provider("b")],
    metrics: { a: metricSnapshot({ updatedAt: 1_000 }) },
    breakers: { a: { state: "closed", probeAvailable: false }, "b|EU": { state: "open", probeAvailable: false } },
    quotas: {},
    shares: { a: 0.7, b: 0.3 },
    ...extra,
  };
}

describe("buildLookups", () => {
  it("reads each candidate's metrics, breaker (regional key first), quota and share in candidate order", () => {
    const c = compiled();
    const s = state();
    const l = buildLookups(s.providers, s, "EU", c.scores);
    expect(l.metrics).toEqual([s.metrics.a, undefined]);
    expect(l.breakers).toEqual([s.breakers.a, s.breakers["b|EU"]]);
    expect(l.shares).toEqual([0.7, 0.3]);
    expect(l.raw).toHaveLength(2 * c.scores.length);
    expect(l.evaluation).toBeNull();
  });
});

describe("lookupsFor", () => {
  it("keeps the plan's lookups while the state's maps are the same objects, and rebuilds when one is replaced", () => {
    const c = compiled();
    const s = state();
    const plan = c.plan(s.providers, "EU");
    const first = lookupsFor(plan, s, "EU", c.scores);
    expect(lookupsFor(plan, { ...s }, "EU", c.scores)).toBe(first);
    const replaced = lookupsFor(plan, { ...s, shares: { a: 0.5, b: 0.5 } }, "EU", c.scores);
    expect(replaced).not.toBe(first);
    expect(replaced.shares).toEqual([0.5, 0.5]);
  });
});

describe("sharedOutcomes", () => {
  it("returns the previous array while every outcome is the same object, a new one otherwise", () => {
    const c = compiled();
    const s = state();
    const l = buildLookups(s.providers, s, "EU", c.scores);
    const pass = constantOutcome({ gate: "not_killed", passed: true, detail: "" });
    const fail = constantOutcome({ gate: "not_killed", passed: false, detail: "killed" });
    const scratch: TGateOutcome[] = [pass, pass, fail];
    const first = sharedOutcomes(l, 0, scratch, 2);
    expect(first).toEqual([pass, pass]);
    expect(sharedOutcomes(l, 0, [pass, pass], 2)).toBe(first);
    const changed = sharedOutcomes(l, 0, [pass, fail], 2);
    expect(changed).not.toBe(first);
    expect(changed).toEqual([pass, fail]);
  });
});
