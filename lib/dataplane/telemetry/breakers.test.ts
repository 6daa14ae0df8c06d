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
