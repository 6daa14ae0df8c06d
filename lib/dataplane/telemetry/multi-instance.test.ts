/* eslint-disable @typescript-eslint/no-explicit-any -- JSON response bodies are asserted field by field */
import { spawn, type ChildProcess } from "node:child_process";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { notifyConfigChange } from "../../db/notify";
import { createTelemetryDatabase, waitFor } from "../../../test/support/telemetry-fixtures";

/**
 * Two real server processes (server.ts, data plane only) on different ports sharing one
 * database: override propagation between them, and controller failover when the leader's
 * process is killed.
 */
const KEY = "multi-instance-key";
let env: Awaited<ReturnType<typeof createTelemetryDatabase>>;
let spoolRoot: string;
type TInstance = { name: string; url: string; child: ChildProcess; output: string[] };
const instances: TInstance[] = [];

async function startInstance(name: string): Promise<TInstance> {
  const child = spawn(process.execPath, ["--import", "tsx", "server.ts"], {
    cwd: process.cwd(),
    env: {
      ...process.env,
      DATABASE_URL: env.db.url,
      PORT: "0",
      HOST: "127.0.0.1",
      SWITCHYARD_SEED_DEMO: "0",
      SWITCHYARD_DATAPLANE_ONLY: "1",
      SWITCHYARD_API_KEY: KEY,
      SWITCHYARD_INSTANCE_ID: name,
      SPOOL_DIR: path.join(spoolRoot, name),
      CONTROLLER_TICK_MS: "500",
      CONTROLLER_LEADER_RETRY_MS: "200",
      METRICS_REFRESH_MS: "500",
      // Slow polling: propagation within a second must come from LISTEN/NOTIFY.
      CONFIG_POLL_MS: "30000",
    },
    stdio: ["ignore", "pipe", "pipe"],
  });
  const output: string[] = [];
  const url = await new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`${name} did not start:\n${output.join("")}`)), 30_000);
    const onData = (chunk: Buffer) => {
      output.push(chunk.toString());
      const m = /ready on (http:\/\/[\d.]+:\d+)/.exec(output.join(""));
      if (m) {
        clearTimeout(timer);
        resolve(m[1]!);
      }
    };
    child.stdout!.on("data", onData);
    child.stderr!.on("data", (c: Buffer) => output.push(c.toString()));
    child.once("exit", (code) => reject(new Error(`${name} exited with ${code}:\n${output.join("")}`)));
  });
  const inst = { name, url, child, output };
  instances.push(inst);
  return inst;
}

async function api(inst: TInstance, method: string, route: string, body?: unknown): Promise<{ status: number; body: any }> {
  const res = await fetch(`${inst.url}${route}`, {
    method,
    headers: { "content-type": "application/json", authorization: `Bearer ${KEY}` },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await res.text();
  return { status: res.status, body: text.startsWith("{") ? JSON.parse(text) : text };
}

let seq = 0;
const decide = (inst: TInstance, region = "EU") =>
  api(inst, "POST", "/api/v1/decide", { operation: "SEND_SMS", region, requestId: `${inst.name}-${Date.now()}-${seq++}`, explain: "full" });

async function shares(region: string): Promise<Record<string, number>> {
  const { rows } = await env.pool.query<{ provider_key: string; share: number }>(
    "select provider_key, share from traffic_share where operation_key = 'SEND_SMS' and region = $1",
    [region],
  );
  return Object.fromEntries(rows.map((r) => [r.provider_key, r.share]));
}

beforeAll(async () => {
  // Breakers that never trip: this test is about score-driven, rate-capped movement surviving a failover.
  env = await createTelemetryDatabase({
    min_sample_size: 20,
    safety: { max_traffic_shift_per_minute: 1, primary_probe_share: 0.01, primary_recovery_cooldown_seconds: 300, require_reason_code: true },
    circuit_breaker: { consecutive_failures: 100_000, failure_rate_threshold: 1, min_calls: 100_000 },
  });
  spoolRoot = await mkdtemp(path.join(tmpdir(), "switchyard-multi-"));
  await Promise.all([startInstance("one"), startInstance("two")]);
}, 90_000);

afterAll(async () => {
  for (const i of instances) if (i.child.exitCode === null) i.child.kill("SIGKILL");
  await env.close();
  await rm(spoolRoot, { recursive: true, force: true });
});

describe("two server processes on one database", () => {
  it("an override written on instance one's side changes instance two's decisions within a second", async () => {
    const [, two] = instances as [TInstance, TInstance];
    // NA only: a kill moves the controller's NA shares at once, and EU is the failover test's.
    const before = await decide(two, "NA");
    expect(before.status).toBe(200);
    expect(before.body.selected).toBe("provider_A");

    await env.prisma.$transaction(async (tx) => {
      await tx.override.create({
        data: { kind: "provider_kill", operationKey: "SEND_SMS", region: "NA", providerKey: "provider_A", reason: "multi-instance test" },
      });
      await notifyConfigChange(tx, { kind: "override", operationKey: "SEND_SMS" });
    });
    let after: any = null;
    const elapsed = await waitFor(
      async () => {
        after = (await decide(two, "NA")).body;
        return after.selected !== "provider_A";
      },
      3_000,
      5,
    );
    process.stdout.write(`override propagation to the other process: ${Math.round(elapsed)} ms after commit\n`);
    expect(elapsed).toBeLessThan(1_000);
    const a = after.candidates.find((c: any) => c.provider === "provider_A");
    expect(a.eligible).toBe(false);

    await env.prisma.$transaction(async (tx) => {
      await tx.override.updateMany({ where: { endedAt: null }, data: { endedAt: new Date(), endReason: "test done" } });
      await notifyConfigChange(tx, { kind: "override", operationKey: "SEND_SMS" });
    });
    await waitFor(async () => (await decide(two, "NA")).body.candidates.find((c: any) => c.provider === "provider_A").eligible === true, 1_000, 5);
  });

  it("killing the controller leader's process: the other instance takes over and shares keep moving", async () => {
    // Outcomes to both instances: provider_A degrades (half its calls time out, slowly), provider_B is healthy.
    const report = async (inst: TInstance, n: number) => {
      for (let i = 0; i < n; i++) {
        const d = await decide(inst);
        const r = await api(inst, "POST", "/api/v1/outcomes", {
          outcomes: [
            i % 2 === 0
              ? {
                  type: "provider_call",
                  decisionId: d.body.decisionId,
                  provider: "provider_A",
                  status: "failure",
                  errorClass: "timeout",
                  latencyMs: 3_000,
                  retryCount: 0,
                }
              : { type: "provider_call", decisionId: d.body.decisionId, provider: "provider_A", status: "success", latencyMs: 2_500, retryCount: 0 },
            { type: "provider_call", decisionId: d.body.decisionId, provider: "provider_B", status: "success", latencyMs: 60, retryCount: 0 },
          ],
        });
        expect(r.body.recorded).toBe(2);
      }
    };
    const [one, two] = instances as [TInstance, TInstance];
    await Promise.all([report(one, 20), report(two, 20)]);

    await waitFor(async () => ((await shares("EU")).provider_A ?? 1) < 0.99, 15_000, 100);
    const health = await Promise.all(instances.map((i) => api(i, "GET", "/api/v1/health")));
    const leaders = health.map((h) => h.body.telemetry.controller.leader);
    expect(leaders.filter(Boolean)).toHaveLength(1);
    const leader = instances[leaders.indexOf(true)]!;
    const follower = instances[leaders.indexOf(false)]!;

    const metricsText = (await api(leader, "GET", "/api/v1/metrics")).body as string;
    expect(metricsText).toContain("switchyard_controller_leader 1");
    expect(metricsText).toMatch(/switchyard_decisions_total\{operation="SEND_SMS",region="EU",provider="provider_[ABC]",reason="[a-z_]+"\} \d+/);

    leader.child.kill("SIGKILL");
    const killedAt = performance.now();
    const atKill = (await shares("EU")).provider_A!;
    await waitFor(async () => (await api(follower, "GET", "/api/v1/health")).body.telemetry.controller.leader === true, 5_000, 50);
    const takeoverMs = performance.now() - killedAt;
    process.stdout.write(`controller takeover after SIGKILL of the leader: ${Math.round(takeoverMs)} ms\n`);
    expect(takeoverMs).toBeLessThan(5_000);

    await waitFor(async () => ((await shares("EU")).provider_A ?? 1) < atKill - 0.005, 10_000, 100);
    // The surviving instance's own routing follows the shares the new leader writes.
    const text = (await api(follower, "GET", "/api/v1/metrics")).body as string;
    const m = /switchyard_traffic_share\{operation="SEND_SMS",region="EU",provider="provider_A"\} ([\d.e-]+)/.exec(text);
    expect(Number(m?.[1])).toBeLessThan(atKill);
    expect(text).toMatch(/switchyard_shares_age_seconds \d/);
    const events = await env.pool.query("select count(*)::int as n from shift_event where region = 'EU' and type = 'score_decay_shift'");
    expect(events.rows[0].n).toBeGreaterThan(0);
  }, 60_000);
});
