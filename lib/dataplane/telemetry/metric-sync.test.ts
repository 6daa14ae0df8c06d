import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createMetricStore } from "../../../router-core/index";
import { createMetricSync, METRIC_BUCKET_SECONDS, readBuckets } from "./metric-sync";
import { createTelemetryDatabase, loadedState } from "../../../test/support/telemetry-fixtures";

let env: Awaited<ReturnType<typeof createTelemetryDatabase>>;
beforeAll(async () => {
  env = await createTelemetryDatabase();
});
afterAll(() => env.close());

const sortBuckets = <T extends { provider: string; region: string; start: number }>(bs: T[]) =>
  [...bs].sort((a, b) => `${a.provider}|${a.region}|${a.start}`.localeCompare(`${b.provider}|${b.region}|${b.start}`));

describe("metric bucket deltas merged through Postgres", () => {
  it("two instances flushing deltas give exactly what one instance recording everything would", async () => {
    const now = Date.now();
    const one = createMetricSync({ pool: env.pool, state: await loadedState(env.prisma), refreshMs: 60_000 });
    const two = createMetricSync({ pool: env.pool, state: await loadedState(env.prisma), refreshMs: 60_000 });
    const reference = createMetricStore({ bucketSeconds: METRIC_BUCKET_SECONDS, retainMinutes: 60 });

    // Deterministic pseudo-random events over three buckets, two providers, two regions, split by parity.
    let seed = 7;
    const rnd = () => (seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31;
    for (let i = 0; i < 600; i++) {
      const key = { provider: rnd() < 0.5 ? "provider_A" : "provider_B", operation: "SEND_SMS", region: rnd() < 0.5 ? "EU" : "NA" };
      const at = now - Math.floor(rnd() * 3) * METRIC_BUCKET_SECONDS * 1000;
      const target = i % 2 === 0 ? one : two;
      if (rnd() < 0.6) {
        const e = { at, latencyMs: 5 + rnd() * 2000, ok: rnd() < 0.9 };
        target.recordCall(key, e);
        reference.recordCall(key, e);
      } else {
        const stages = ["provider_call", "user_action", "unknown"] as const;
        const e = { at, completed: rnd() < 0.7, failureStage: stages[Math.floor(rnd() * 3)] };
        target.recordOutcome(key, e);
        reference.recordOutcome(key, e);
      }
      // Flushes in the middle of recording: later deltas must add to, not replace, earlier ones.
      if (i === 200) await one.refresh();
      if (i === 350) await two.refresh();
    }
    await one.refresh();
    await two.refresh();
    await one.refresh();

    const expected = sortBuckets(reference.buckets());
    expect(sortBuckets(one.buckets())).toEqual(expected);
    expect(sortBuckets(two.buckets())).toEqual(expected);
    expect(sortBuckets(await readBuckets(env.pool, now - 10 * 60_000))).toEqual(expected);
    expect(one.unflushed).toBe(0);

    const window = { windowMinutes: 5, minSampleSize: 50 };
    const key = { provider: "provider_A", operation: "SEND_SMS", region: "EU" };
    expect(one.snapshot(key, window.windowMinutes, window.minSampleSize)).toEqual(reference.snapshot(key, { now: Date.now(), ...window }));
  });

  it("publishes snapshots for every known (operation, region) into the routing state", async () => {
    const state = await loadedState(env.prisma);
    const sync = createMetricSync({ pool: env.pool, state, refreshMs: 60_000 });
    await sync.refresh();
    const snapshot = state.snapshotFor("SEND_SMS", "EU");
    expect(snapshot?.metrics.provider_A?.sampleCount).toBeGreaterThan(0);
    expect(sync.lastRefreshAt).not.toBeNull();
  });

  it("keeps deltas it could not flush and sends them with the next successful refresh", async () => {
    const state = await loadedState(env.prisma);
    const broken = { query: () => Promise.reject(Object.assign(new Error("connect ECONNREFUSED"), { code: "ECONNREFUSED" })) };
    const key = { provider: "provider_C", operation: "SEND_SMS", region: "LATAM" };
    const offline = createMetricSync({ pool: broken as never, state, refreshMs: 60_000 });
    offline.recordCall(key, { at: Date.now(), latencyMs: 40, ok: true });
    await offline.refresh();
    expect(offline.unflushed).toBe(1);
    expect(offline.lastError).toMatch(/ECONNREFUSED/);
    // The local view still counts it.
    expect(offline.snapshot(key, 5, 1).sampleCount).toBe(1);
    expect((await readBuckets(env.pool, Date.now() - 60_000)).filter((b) => b.provider === "provider_C")).toHaveLength(0);
  });
});

describe("refresh period", () => {
  it("follows the policies' smallest refresh_interval_seconds unless METRICS_REFRESH_MS fixes it", async () => {
    const state = await loadedState(env.prisma);
    expect(createMetricSync({ pool: env.pool, state }).refreshMs).toBe(30_000);
    expect(createMetricSync({ pool: env.pool, state, refreshMs: 250 }).refreshMs).toBe(250);
    const active = state.policyFor("SEND_SMS")!;
    state.setPolicy("SEND_SMS", { ...active, policy: { ...active.policy, refresh_interval_seconds: 7 } });
    expect(createMetricSync({ pool: env.pool, state }).refreshMs).toBe(7_000);
  });
});
