import { describe, expect, it } from "vitest";
import { decide } from "../../router-core/index";
import { applySnapshotDelta, LocalRouter, type SwitchyardClient, type TRoutingSnapshot, type TSnapshotDelta } from "../src/index";

const region = (tag: string) => ({ metrics: {}, breakers: {}, quotas: {}, shares: null, overrides: {}, policyVersion: tag });
const base = (): TRoutingSnapshot => ({
  providers: [{ key: "p" }],
  operations: {
    A: { policyVersion: "v1", policy: { name: "a" }, shadow: null, regions: { EU: region("a-eu"), NA: region("a-na") } },
    B: { policyVersion: "v3", policy: { name: "b" }, shadow: null, regions: { EU: region("b-eu") } },
  },
  dbAvailable: true,
});

describe("applySnapshotDelta", () => {
  it("replaces what the delta names and keeps the objects of everything else", () => {
    const before = base();
    const after = applySnapshotDelta(before, { operations: { A: { regions: { NA: region("a-na-2"), APAC: region("a-apac") } } } });
    expect(after.operations.A!.regions.NA).toEqual(region("a-na-2"));
    expect(after.operations.A!.regions.APAC).toEqual(region("a-apac"));
    expect(after.operations.A!.regions.EU).toBe(before.operations.A!.regions.EU);
    expect(after.operations.A!.policy).toBe(before.operations.A!.policy);
    expect(after.operations.B).toBe(before.operations.B);
    expect(after.providers).toBe(before.providers);
    expect(before.operations.A!.regions.NA).toEqual(region("a-na")); // the base is not changed
  });

  it("removes operations and regions named null, and takes a new head, catalogue and database flag", () => {
    const after = applySnapshotDelta(base(), {
      providers: [{ key: "q" }],
      dbAvailable: false,
      operations: { B: null, A: { head: { policyVersion: "v2", policy: { name: "a2" }, shadow: null }, regions: { NA: null } } },
    });
    expect(Object.keys(after.operations)).toEqual(["A"]);
    expect(after.operations.A).toMatchObject({ policyVersion: "v2", policy: { name: "a2" } });
    expect(Object.keys(after.operations.A!.regions)).toEqual(["EU"]);
    expect(after).toMatchObject({ providers: [{ key: "q" }], dbAvailable: false });
  });

  it("refuses a new operation without its head", () => {
    expect(() => applySnapshotDelta(base(), { operations: { C: { regions: { EU: region("c") } } } })).toThrow(/C is new/);
  });
});

describe("LocalRouter on deltas", () => {
  it("keeps the state object (and router-core's caches) of regions a delta leaves alone", async () => {
    // A fake Switchyard: each long-poll waits for the next pushed answer, or ends (null) when aborted.
    const waiting: Array<(answer: unknown) => void> = [];
    const next = (_since: string, _waitMs: number, signal?: AbortSignal) =>
      new Promise((resolve) => {
        waiting.push(resolve);
        signal?.addEventListener("abort", () => resolve(null));
      });
    const snapshot = (await import("./fixtures/demo-snapshot.json", { with: { type: "json" } })).default as unknown as TRoutingSnapshot;
    const client = {
      snapshot: async () => ({ version: "e.1", at: 0, snapshot }),
      snapshotChanges: next,
      // What LocalRouter hands each decision to: its count, and its report with or without the record.
      countDecision: () => {},
      recordDecision: () => {},
      skipRecord: () => {},
    } as unknown as SwitchyardClient;
    const seen = new Map<string, unknown>();
    const engine = {
      decide: ((input: { operation: string; region: string }, state: unknown, ...rest: unknown[]) => {
        seen.set(input.region, state);
        return (decide as (...a: unknown[]) => unknown)(input, state, ...rest);
      }) as never,
    };
    const local = new LocalRouter({ client, engine });
    await local.start();
    local.decide({ operation: "SEND_SMS", region: "EU" });
    local.decide({ operation: "SEND_SMS", region: "NA" });
    const [eu, na] = [seen.get("EU"), seen.get("NA")];

    const naState = snapshot.operations.SEND_SMS!.regions.NA!;
    const pin = { provider: "provider_C", reason: "test", expiresAt: Date.now() + 3_600_000 };
    const delta: TSnapshotDelta = { operations: { SEND_SMS: { regions: { NA: { ...naState, overrides: { pin } } } } } };
    for (let i = 0; i < 100 && waiting.length === 0; i++) await new Promise((r) => setTimeout(r, 5));
    waiting.shift()!({ version: "e.2", at: 1, base: "e.1", delta });
    for (let i = 0; i < 100 && local.version !== "e.2"; i++) await new Promise((r) => setTimeout(r, 5));
    expect(local.version).toBe("e.2");

    expect(local.decide({ operation: "SEND_SMS", region: "NA" }).selected).toBe("provider_C");
    expect(seen.get("NA")).not.toBe(na);
    local.decide({ operation: "SEND_SMS", region: "EU" });
    expect(seen.get("EU")).toBe(eu);
    await local.close();
  });
});
