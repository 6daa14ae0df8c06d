import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { notifyConfigChange } from "../../db/notify";
import { createTelemetryDatabase, setPolicy, waitFor } from "../../../test/support/telemetry-fixtures";
import { callInstance, gauge, startServerInstance, type TServerInstance } from "../../../test/support/server-instances";
import { startTcpProxy } from "../../../test/support/tcp-proxy";

/**
 * Three real server processes on one database, plus a fourth whose connection to Postgres goes
 * through a proxy the test can cut: breaker openings, half-open probe slots and probe successes
 * are the cluster's, and an instance without Postgres runs on its own breakers and says so.
 */
const KEY = "cluster-breakers-key";
const OPENED = 'switchyard_breaker_opened_at_seconds{provider="provider_A",region="EU"}';
let env: Awaited<ReturnType<typeof createTelemetryDatabase>>;
let spoolRoot: string;
let proxy: Awaited<ReturnType<typeof startTcpProxy>>;
const cluster: TServerInstance[] = [];
let isolated: TServerInstance;

const api = (inst: TServerInstance, method: string, route: string, body?: unknown) => callInstance(inst, KEY, method, route, body);
let seq = 0;
const decide = (inst: TServerInstance) =>
  api(inst, "POST", "/api/v1/decide", { operation: "SEND_SMS", region: "EU", requestId: `${inst.name}-${seq++}`, explain: "full" });
const openedAt = async (inst: TServerInstance) => gauge((await api(inst, "GET", "/api/v1/metrics")).body as string, OPENED) ?? 0;

/**
 * A fresh decision of this instance that offered provider_A: an outcome may name only a provider
 * its decision offered, and a half-open provider is offered once the instance holds a probe slot.
 */
async function decisionOfferingA(inst: TServerInstance): Promise<string> {
  for (let i = 0; i < 300; i++) {
    const d = await decide(inst);
    const candidates = (d.body.candidates ?? []) as Array<{ provider: string; eligible: boolean }>;
    if (candidates.some((c) => c.provider === "provider_A" && c.eligible)) return d.body.decisionId;
    await new Promise((r) => setTimeout(r, 10));
  }
  throw new Error(`${inst.name}: no decision offered provider_A`);
}

/** Reports one provider_A outcome through this instance, on `decisionId` or a fresh decision that offered provider_A. */
async function reportA(inst: TServerInstance, ok: boolean, decisionId?: string): Promise<void> {
  const id = decisionId ?? (await decisionOfferingA(inst));
  const outcome = ok
    ? { type: "provider_call", decisionId: id, provider: "provider_A", status: "success", latencyMs: 1, retryCount: 0 }
    : { type: "provider_call", decisionId: id, provider: "provider_A", status: "failure", errorClass: "timeout", latencyMs: 1, retryCount: 0 };
  const r = await api(inst, "POST", "/api/v1/outcomes", { outcomes: [outcome] });
  expect(r.body.recorded).toBe(1);
}

/** backoff_multiplier 1: a breaker reopened many times keeps the same open time. */
const BREAKER = {
  consecutive_failures: 1,
  failure_rate_threshold: 1,
  window_seconds: 300,
  min_calls: 100_000,
  backoff_multiplier: 1,
  half_open_probes: 3,
  half_open_successes_to_close: 3,
};

const percentile = (xs: number[], p: number) => [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.ceil((p / 100) * xs.length) - 1)]!;

beforeAll(async () => {
  // One failure opens provider_A; the probe test keeps it open long enough to watch its half-open period.
  env = await createTelemetryDatabase({ circuit_breaker: { ...BREAKER, open_seconds: 5, max_open_seconds: 5 } });
  spoolRoot = await mkdtemp(path.join(tmpdir(), "switchyard-cluster-"));
  const u = new URL(env.db.url);
  proxy = await startTcpProxy({ host: u.hostname, port: Number(u.port || 5432) });
  const proxied = new URL(env.db.url);
  proxied.hostname = "127.0.0.1";
  proxied.port = String(proxy.port);
  const common = { databaseUrl: env.db.url, apiKey: KEY, spoolRoot, env: { CONFIG_POLL_MS: "30000", BREAKER_POLL_MS: "1000" } };
  const started = await Promise.all([
    ...["one", "two", "three"].map((name) => startServerInstance({ ...common, name })),
    startServerInstance({ ...common, name: "isolated", databaseUrl: proxied.toString() }),
  ]);
  cluster.push(...started.slice(0, 3));
  isolated = started[3]!;
  // Until its first sync an instance runs on its own breakers, as it does without Postgres.
  for (const i of started) await waitFor(async () => (await api(i, "GET", "/api/v1/health")).body.telemetry.breakers.shared === true, 30_000, 50);
}, 120_000);

afterAll(async () => {
  if (process.env.CLUSTER_TEST_LOGS) {
    const { writeFile } = await import("node:fs/promises");
    for (const i of [...cluster, isolated]) if (i) await writeFile(path.join(process.env.CLUSTER_TEST_LOGS, `${i.name}.log`), i.output.join(""));
  }
  for (const i of [...cluster, isolated]) if (i && i.child.exitCode === null) i.child.kill("SIGKILL");
  await proxy?.close();
  await env.close();
  await rm(spoolRoot, { recursive: true, force: true });
});

describe("breakers shared by three server processes", () => {
  it("half-open probes are budgeted for the cluster, and probe successes on different instances close it everywhere", async () => {
    await new Promise((r) => setTimeout(r, 1_050));
    await reportA(cluster[0]!, false);
    const opened = await openedAt(cluster[0]!);
    await waitFor(async () => (await Promise.all(cluster.map(openedAt))).every((o) => o === opened), 5_000, 10);
    // Once the open time is up each instance takes a slot from the row: the cluster's three.
    const claims = async () => (await env.pool.query("select probe_claims from breaker_state where provider_key = 'provider_A'")).rows[0]?.probe_claims;
    await waitFor(async () => (await claims()) === 3, 15_000, 50);
    // Every instance asks for many decisions while provider_A is half-open: at most half_open_probes of them may probe it.
    const t0 = performance.now();
    const ds = await Promise.all(cluster.flatMap((i) => Array.from({ length: 10 }, () => decide(i))));
    const burstMs = performance.now() - t0;
    const probes = ds.filter((d) => d.body.selected === "provider_A").length;
    process.stdout.write(`half-open probes routed to provider_A across three instances: ${probes} of 30 decisions in ${burstMs.toFixed(0)} ms (budget 3)\n`);
    expect(probes).toBeGreaterThan(0);
    expect(probes).toBeLessThanOrEqual(3);

    // One probe success through each instance, for the probes routed: none has three, the cluster has.
    const probed = ds.filter((d) => d.body.selected === "provider_A").map((d) => d.body.decisionId as string);
    for (const [i, inst] of cluster.entries()) await reportA(inst, true, probed[i % probed.length]);
    await waitFor(async () => (await Promise.all(cluster.map(openedAt))).every((o) => o === 0), 5_000, 20);
    // One instance closed it on the cluster's count (its breaker_event row is written by the next maintenance pass); the others merged.
    const closes = async () =>
      (await env.pool.query("select count(*)::int as n from breaker_event where provider_key = 'provider_A' and reason = 'probe_successes'")).rows[0].n;
    await waitFor(async () => (await closes()) >= 1, 5_000, 50);
    await new Promise((r) => setTimeout(r, 1_500));
    expect(await closes()).toBe(1);
  }, 60_000);

  it("a breaker opened on one instance is open on the other two within a second (50 trials)", async () => {
    // A short open time lets one breaker reopen fifty times in a minute.
    await setPolicy(env.prisma, { circuit_breaker: { ...BREAKER, open_seconds: 1, max_open_seconds: 1 } });
    await notifyConfigChange(env.prisma, { kind: "policy", operationKey: "SEND_SMS" });
    await new Promise((r) => setTimeout(r, 2_000));
    const samples: number[] = [];
    let last = 0;
    for (let trial = 0; trial < 50; trial++) {
      const origin = cluster[trial % 3]!;
      const others = cluster.filter((i) => i !== origin);
      // The previous opening's time must be up, or the origin's breaker ignores the failure.
      await new Promise((r) => setTimeout(r, 1_050));
      const decisionId = await decisionOfferingA(origin);
      const t0 = performance.now();
      await reportA(origin, false, decisionId);
      const opened = await openedAt(origin);
      expect(opened).toBeGreaterThan(last);
      last = opened;
      await Promise.all(
        others.map(async (o) => {
          await waitFor(async () => (await openedAt(o)) === opened, 5_000, 5);
          samples.push(performance.now() - t0);
        }),
      );
    }
    const p50 = percentile(samples, 50);
    const p99 = percentile(samples, 99);
    process.stdout.write(
      `breaker open on the other instances after the failing outcome's request began: p50 ${p50.toFixed(0)} ms, p99 ${p99.toFixed(0)} ms, max ${Math.max(...samples).toFixed(0)} ms over ${samples.length} observations (50 trials)\n`,
    );
    expect(p99).toBeLessThan(1_000);
    // One controller leader among the four (whichever won the lock), and it routes on the merged state too.
    const health = await Promise.all([...cluster, isolated].map((i) => api(i, "GET", "/api/v1/health")));
    expect(health.filter((h) => h.body.telemetry.controller.leader)).toHaveLength(1);
    for (const h of health) expect(h.body.telemetry.breakers.shared).toBe(true);
  }, 180_000);

  it("an instance that loses Postgres runs on its own view, says so in /health and /metrics, and merges when Postgres is back", async () => {
    await waitFor(async () => (await api(isolated, "GET", "/api/v1/health")).body.telemetry.breakers.shared === true, 10_000, 50);
    proxy.cut();
    await waitFor(
      async () => {
        await decide(isolated);
        return (await api(isolated, "GET", "/api/v1/health")).body.telemetry.breakers.shared === false;
      },
      15_000,
      200,
    );
    const text = (await api(isolated, "GET", "/api/v1/metrics")).body as string;
    expect(gauge(text, "switchyard_breakers_shared")).toBe(0);

    // Opened by the cluster while the isolated instance cannot reach Postgres: it keeps its own (stale) view.
    await new Promise((r) => setTimeout(r, 1_050));
    await reportA(cluster[0]!, false);
    const opened = await openedAt(cluster[0]!);
    await waitFor(async () => (await Promise.all(cluster.map(openedAt))).every((o) => o === opened), 5_000, 20);
    expect(await openedAt(isolated)).not.toBe(opened);

    proxy.restore();
    const mergedMs = await waitFor(async () => (await openedAt(isolated)) === opened, 15_000, 50);
    process.stdout.write(`isolated instance merged the cluster's breaker ${Math.round(mergedMs)} ms after Postgres came back\n`);
    await waitFor(async () => (await api(isolated, "GET", "/api/v1/health")).body.telemetry.breakers.shared === true, 15_000, 100);
    expect(gauge((await api(isolated, "GET", "/api/v1/metrics")).body as string, "switchyard_breakers_shared")).toBe(1);
  }, 60_000);
});
