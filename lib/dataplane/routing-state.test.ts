import { describe, expect, it } from "vitest";
import { createSimulatedClock, parseFactorList, type TFactorList, type TProviderInfo } from "@/router-core";
import { demoSmsPolicyYaml } from "@/lib/demo/seed-demo";
import { createRoutingState } from "./routing-state";

function policy(): TFactorList {
  const r = parseFactorList(demoSmsPolicyYaml());
  if (!r.ok) throw new Error(JSON.stringify(r.errors));
  return r.value;
}

const provider = (key: string, regions: string[]): TProviderInfo => ({
  key,
  regions,
  complianceTags: [],
  costPerRequest: 0.01,
  credentialStatus: "valid",
  enabled: true,
});

function setup() {
  const clock = createSimulatedClock(1_000_000);
  const state = createRoutingState(clock);
  state.setProviders([provider("provider_A", ["EU", "NA"]), provider("provider_B", ["EU", "LATAM"]), provider("other", ["MARS"])]);
  state.setPolicy("SEND_SMS", { policy: policy(), version: "v1", shadow: null });
  return { clock, state };
}

describe("routing state", () => {
  it("knows the regions the policy's providers serve (not other providers')", () => {
    const { state } = setup();
    expect(state.knownRegions("SEND_SMS")).toEqual(["EU", "LATAM", "NA"]);
    expect(state.snapshotFor("SEND_SMS", "MARS")).toBeNull();
    expect(state.snapshotFor("SEND_FAX", "EU")).toBeNull();
    expect(state.hasOperation("SEND_SMS")).toBe(true);
  });

  it("returns the same snapshot object until a setter changes something", () => {
    const { state } = setup();
    const a = state.snapshotFor("SEND_SMS", "EU");
    expect(state.snapshotFor("SEND_SMS", "EU")).toBe(a);
    state.setShares("SEND_SMS", "EU", { provider_A: 0.7, provider_B: 0.3 });
    const b = state.snapshotFor("SEND_SMS", "EU");
    expect(b).not.toBe(a);
    expect(b?.shares).toEqual({ provider_A: 0.7, provider_B: 0.3 });
    expect(b?.policyVersion).toBe("v1");
  });

  it("folds overrides by scope, prefers the most specific pin, and drops them when they expire", () => {
    const { clock, state } = setup();
    state.setOverrides([
      { kind: "provider_kill", operation: null, region: null, provider: "provider_B", reason: "incident", expiresAt: null },
      { kind: "provider_pin", operation: "SEND_SMS", region: null, provider: "provider_A", reason: "op pin", expiresAt: null },
      { kind: "provider_pin", operation: "SEND_SMS", region: "EU", provider: "provider_B", reason: "eu pin", expiresAt: 1_060_000 },
      { kind: "routing_kill_switch", operation: "OTHER", region: null, provider: null, reason: "n/a", expiresAt: null },
    ]);
    const eu = state.snapshotFor("SEND_SMS", "EU")!;
    expect(eu.overrides).toEqual({
      routingKilled: false,
      killedProviders: ["provider_B"],
      pin: { provider: "provider_B", reason: "eu pin", expiresAt: 1_060_000 },
    });
    expect(state.snapshotFor("SEND_SMS", "NA")!.overrides?.pin?.reason).toBe("op pin");
    clock.advance(60_000);
    expect(state.snapshotFor("SEND_SMS", "EU")!.overrides?.pin?.reason).toBe("op pin");
  });

  it("removes an operation whose policy is gone on a full replace", () => {
    const { state } = setup();
    state.replacePolicies(new Map());
    expect(state.hasOperation("SEND_SMS")).toBe(false);
    expect(state.snapshotFor("SEND_SMS", "EU")).toBeNull();
    expect(state.operations()).toEqual([]);
  });
});
