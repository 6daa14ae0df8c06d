import { describe, expect, it } from "vitest";
import { parseFactorList } from "../../../router-core/index";
import { createRoutingState } from "../routing-state";
import { createBreakerBank, type TBreakerTransitionRow } from "./breakers";

function setup() {
  let now = 1_700_000_000_000;
  const state = createRoutingState({ now: () => now });
  const parsed = parseFactorList({
    operation: "SEND_SMS",
    providers: ["provider_A", "provider_B"],
    circuit_breaker: { consecutive_failures: 2, open_seconds: 1, max_open_seconds: 10, half_open_probes: 2, half_open_successes_to_close: 1 },
  });
  if (!parsed.ok) throw new Error("policy");
  state.setProviders([
    { key: "provider_A", regions: ["EU"], complianceTags: [], costPerRequest: 0.01, credentialStatus: "valid", enabled: true },
    { key: "provider_B", regions: ["EU"], complianceTags: [], costPerRequest: 0.01, credentialStatus: "valid", enabled: true },
  ]);
  state.setPolicy("SEND_SMS", { policy: parsed.value, version: "v1", shadow: null });
  const opened: TBreakerTransitionRow[] = [];
  const bank = createBreakerBank({ state, instanceId: "i", now: () => now, onOpen: (t) => opened.push(t) });
  return { state, bank, opened, advance: (ms: number) => (now += ms), now: () => now };
}

describe("breaker bank", () => {
  it("opens on the policy's thresholds, half-opens when due, counts decisions as probes, closes on a probe success", async () => {
    const { state, bank, opened, advance, now } = setup();
    bank.record("SEND_SMS", "provider_A", "EU", true, "timeout", now());
    expect(state.snapshotFor("SEND_SMS", "EU")?.breakers["provider_A|EU"]?.state).toBe("closed");
    bank.record("SEND_SMS", "provider_A", "EU", true, "http_5xx 503", now());
    expect(state.snapshotFor("SEND_SMS", "EU")?.breakers["provider_A|EU"]?.state).toBe("open");
    expect(opened.map((t) => [t.provider, t.region, t.reason])).toEqual([["provider_A", "EU", "consecutive_failures"]]);

    advance(1_000);
    bank.tick();
    expect(state.snapshotFor("SEND_SMS", "EU")?.breakers["provider_A|EU"]).toMatchObject({ state: "half_open", probeAvailable: true });
    bank.probeStarted("SEND_SMS", "provider_A", "EU");
    bank.probeStarted("SEND_SMS", "provider_A", "EU");
    expect(state.snapshotFor("SEND_SMS", "EU")?.breakers["provider_A|EU"]).toMatchObject({ state: "half_open", probeAvailable: false });
    // A closed breaker ignores decisions entirely.
    bank.probeStarted("SEND_SMS", "provider_B", "EU");

    bank.record("SEND_SMS", "provider_A", "EU", false, "", now());
    expect(state.snapshotFor("SEND_SMS", "EU")?.breakers["provider_A|EU"]?.state).toBe("closed");

    const written: unknown[] = [];
    await bank.flush({ query: async (_sql: string, params: unknown[]) => void written.push(JSON.parse(params[0] as string)) } as never);
    const rows = written[0] as Array<{ from: string; to: string; reason: string }>;
    expect(rows.map((r) => `${r.from}->${r.to}:${r.reason}`)).toEqual([
      "closed->open:consecutive_failures",
      "open->half_open:open_elapsed",
      "half_open->closed:probe_successes",
    ]);
  });

  it("keeps transitions it could not write for the next flush", async () => {
    const { bank, now } = setup();
    bank.record("SEND_SMS", "provider_B", "EU", true, "", now());
    bank.record("SEND_SMS", "provider_B", "EU", true, "", now());
    await expect(bank.flush({ query: () => Promise.reject(new Error("down")) } as never)).rejects.toThrow("down");
    const written: unknown[] = [];
    await bank.flush({ query: async (_sql: string, params: unknown[]) => void written.push(params[0]) } as never);
    expect(written).toHaveLength(1);
  });
});

describe("correlated regional breakers (the replay's rule, live)", () => {
  function regional(correlation?: { min_regions: number }) {
    let now = 1_700_000_000_000;
    const state = createRoutingState({ now: () => now });
    const parsed = parseFactorList({
      operation: "SEND_SMS",
      providers: ["provider_A", "provider_B"],
      circuit_breaker: { consecutive_failures: 5, open_seconds: 30, max_open_seconds: 300, half_open_probes: 2, half_open_successes_to_close: 1 },
    });
    if (!parsed.ok) throw new Error("policy");
    const regions = ["EU", "NA", "APAC"];
    state.setProviders(
      ["provider_A", "provider_B"].map((key) => ({
        key,
        regions,
        complianceTags: [],
        costPerRequest: 0.01,
        credentialStatus: "valid" as const,
        enabled: true,
      })),
    );
    state.setPolicy("SEND_SMS", { policy: parsed.value, version: "v1", shadow: null });
    const opened: TBreakerTransitionRow[] = [];
    const bank = createBreakerBank({ state, instanceId: "i", now: () => now, onOpen: (t) => opened.push(t), correlation });
    const fail = (region: string, n: number) => {
      for (let i = 0; i < n; i++) bank.record("SEND_SMS", "provider_A", region, true, "http_5xx 503", now);
    };
    const ok = (region: string) => bank.record("SEND_SMS", "provider_A", region, false, "", now);
    /** Failures in one region with a success elsewhere after each: no provider-wide run builds up. */
    const failAmid = (region: string, n: number, answering: string) => {
      for (let i = 0; i < n; i++) {
        fail(region, 1);
        ok(answering);
      }
    };
    // Every region has seen provider_A once, so each has a breaker.
    for (const r of regions) ok(r);
    return { bank, opened, fail, failAmid, ok, advance: (ms: number) => (now += ms), view: (r: string) => bank.views()[`provider_A|${r}`] };
  }

  it("once one region opens, the others open on fewer failures, and provider-wide on the first", () => {
    const { opened, fail, failAmid, view } = regional();
    failAmid("EU", 5, "APAC");
    expect(view("EU")?.state).toBe("open");
    fail("NA", 1);
    expect(view("NA")?.state).toBe("closed");
    fail("NA", 1); // 2 consecutive failures while EU is open: suspect threshold
    expect(view("NA")?.state).toBe("open");
    fail("APAC", 1); // two regions open: provider-wide, the first failure opens
    expect(view("APAC")?.state).toBe("open");
    expect(opened.map((t) => [t.region, t.reason])).toEqual([
      ["EU", "consecutive_failures"],
      ["NA", "correlated_failures"],
      ["APAC", "correlated_failures"],
    ]);
  });

  it("a regional failure stays regional: regions that keep succeeding stay closed", () => {
    const { fail, failAmid, ok, view } = regional();
    failAmid("EU", 5, "NA");
    fail("NA", 1);
    ok("NA");
    fail("APAC", 1);
    ok("APAC");
    expect([view("EU")?.state, view("NA")?.state, view("APAC")?.state]).toEqual(["open", "closed", "closed"]);
  });

  it("five failures with no success in any region open every region at once; a region without failures of its own probes first", () => {
    const { bank, opened, fail, ok, advance, view } = regional();
    fail("EU", 5);
    expect([view("EU")?.state, view("NA")?.state, view("APAC")?.state]).toEqual(["open", "open", "open"]);
    expect(opened.map((t) => [t.region, t.reason])).toEqual([
      ["EU", "consecutive_failures"],
      ["NA", "correlated_failures"],
      ["APAC", "correlated_failures"],
    ]);
    advance(30_000);
    bank.tick();
    expect([view("EU")?.state, view("NA")?.state, view("APAC")?.state]).toEqual(["open", "half_open", "open"]);
    // NA answers: the failure was EU's alone, so EU and APAC half-open at once and probe for themselves.
    bank.probeStarted("SEND_SMS", "provider_A", "NA");
    ok("NA");
    expect([view("EU")?.state, view("NA")?.state, view("APAC")?.state]).toEqual(["half_open", "closed", "half_open"]);
  });

  it("min_regions 0 turns it off: each region needs its own consecutive failures", () => {
    const { fail, view } = regional({ min_regions: 0 });
    fail("EU", 5);
    fail("NA", 4);
    expect(view("NA")?.state).toBe("closed");
    fail("NA", 1);
    expect(view("NA")?.state).toBe("open");
  });
});
