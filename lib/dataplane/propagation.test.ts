import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { notifyConfigChange } from "../db/notify";
import { loadConfig } from "./load-config";
import { createPropagation, createShareLoader, type Propagation } from "./propagation";
import type { RoutingState } from "./routing-state";
import { createTelemetryDatabase, loadedState, waitFor } from "../../test/support/telemetry-fixtures";

let env: Awaited<ReturnType<typeof createTelemetryDatabase>>;
const running: Propagation[] = [];
beforeAll(async () => {
  env = await createTelemetryDatabase();
});
afterAll(async () => {
  await Promise.all(running.map((p) => p.stop()));
  await env.close();
});

/** An "instance": its own routing state kept current by LISTEN/NOTIFY; polling is slowed down so only notices count. */
async function instance(): Promise<{ state: RoutingState; propagation: Propagation }> {
  const state = await loadedState(env.prisma);
  const propagation = createPropagation({
    databaseUrl: env.db.url,
    reloadConfig: async () => {
      await loadConfig(env.prisma, state);
    },
    reloadShares: createShareLoader(env.pool, state).load,
    pollMs: 60_000,
  });
  running.push(propagation);
  propagation.start();
  await waitFor(() => propagation.listening, 5_000);
  return { state, propagation };
}

describe("propagation over LISTEN/NOTIFY", () => {
  it("an override committed with its notice reaches the other instance's routing state in under a second", async () => {
    const other = await instance();
    expect(other.state.snapshotFor("SEND_SMS", "EU")?.overrides?.killedProviders ?? []).toEqual([]);

    const latencies: number[] = [];
    const fromCommit: number[] = [];
    for (const provider of ["provider_A", "provider_B", "provider_C"]) {
      const t0 = performance.now();
      await env.prisma.$transaction(async (tx) => {
        await tx.override.create({ data: { kind: "provider_kill", operationKey: "SEND_SMS", providerKey: provider, reason: "test" } });
        await notifyConfigChange(tx, { kind: "override", operationKey: "SEND_SMS" });
      });
      const committed = performance.now();
      await waitFor(() => (other.state.snapshotFor("SEND_SMS", "EU")?.overrides?.killedProviders ?? []).includes(provider), 1_000, 2);
      latencies.push(performance.now() - t0);
      fromCommit.push(performance.now() - committed);
    }
    const ms = (xs: number[]) => xs.map((l) => `${Math.round(l)} ms`).join(", ");
    process.stdout.write(`override → other instance's routing state: ${ms(latencies)} (from commit: ${ms(fromCommit)})\n`);
    expect(Math.max(...latencies)).toBeLessThan(1_000);
    await env.prisma.override.updateMany({ data: { endedAt: new Date(), endReason: "test" } });
  });

  it("shares written by the controller reach the other instance on the shares channel", async () => {
    const other = await instance();
    await env.pool.query(
      `insert into traffic_share (operation_key, region, provider_key, share, updated_at)
       values ('SEND_SMS', 'NA', 'provider_A', 0.7, now()), ('SEND_SMS', 'NA', 'provider_B', 0.3, now())`,
    );
    await env.pool.query("select pg_notify('switchyard_shares', '[\"SEND_SMS\"]')");
    await waitFor(() => other.state.snapshotFor("SEND_SMS", "NA")?.shares?.provider_B === 0.3, 1_000, 2);
    expect(other.state.snapshotFor("SEND_SMS", "NA")?.shares).toEqual({ provider_A: 0.7, provider_B: 0.3 });
  });

  it("reconnects after its session is killed and catches up on what it missed", async () => {
    const other = await instance();
    await env.pool.query(
      "select pg_terminate_backend(pid) from pg_stat_activity where application_name = 'switchyard-listener' and datname = current_database()",
    );
    // A change while the listener is away: its notice is lost, the reconnect's reload brings it in.
    await env.prisma.override.create({ data: { kind: "routing_kill_switch", operationKey: "SEND_SMS", reason: "missed notice" } });
    await waitFor(() => other.state.snapshotFor("SEND_SMS", "EU")?.overrides?.routingKilled === true, 5_000);
    await waitFor(() => other.propagation.listening, 5_000);
  });
});
