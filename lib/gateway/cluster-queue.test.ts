import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { notifyConfigChange } from "../db/notify";
import { jobIdempotencyKey } from "./gateway";
import { createGatewayWorld, TEST_SECRETS, type TGatewayWorld } from "../../test/support/gateway-fixtures";
import { callInstance, gauge, startServerInstance, type TServerInstance } from "../../test/support/server-instances";

/**
 * Three real server processes on one database. SEND_SMS's providers are killed, so execute
 * requests queue (Listing 1's use_secondary_then_queue); the instance that queued them is
 * SIGKILLed; once the kills end, the survivors run each job exactly once and any of them answers
 * the poll.
 */
const KEY = "cluster-queue-key";
let world: TGatewayWorld;
let spoolRoot: string;
const cluster: TServerInstance[] = [];

const api = (inst: TServerInstance, method: string, route: string, body?: unknown) => callInstance(inst, KEY, method, route, body);
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const providerCalls = () => world.mocks.provider_A.requests.length + world.mocks.provider_B.requests.length;

beforeAll(async () => {
  world = await createGatewayWorld();
  for (const providerKey of ["provider_A", "provider_B"]) {
    await world.prisma.override.create({ data: { kind: "provider_kill", providerKey, reason: "cluster queue test: nothing eligible" } });
  }
  spoolRoot = await mkdtemp(path.join(tmpdir(), "switchyard-cluster-queue-"));
  for (const name of ["q1", "q2", "q3"]) {
    cluster.push(
      await startServerInstance({
        name,
        databaseUrl: world.db.url,
        apiKey: KEY,
        spoolRoot,
        env: { ...TEST_SECRETS, SWITCHYARD_ALLOW_LOOPBACK_PROVIDERS: "1", CONFIG_POLL_MS: "1000" },
      }),
    );
  }
}, 180_000);

afterAll(async () => {
  const running = cluster.filter((i) => i.child.exitCode === null && i.child.signalCode === null);
  for (const i of running) i.child.kill("SIGKILL");
  await Promise.all(running.map((i) => new Promise((r) => i.child.once("exit", r))));
  await Promise.all(Object.values(world?.mocks ?? {}).map((m) => m.close()));
  await world?.prisma.$disconnect();
  await world?.db.drop();
  await rm(spoolRoot, { recursive: true, force: true });
});

describe("the execute queue across instances", () => {
  it("a job queued on an instance that is then SIGKILLed is run once by another and polled from a third", async () => {
    const [q1, q2, q3] = cluster as [TServerInstance, TServerInstance, TServerInstance];
    const jobs: string[] = [];
    for (let n = 0; n < 3; n++) {
      const r = await api(q1, "POST", "/api/v1/execute/SEND_SMS", { region: "EU", input: { to: `+4915${n}`, text: "queued" } });
      expect(r.status, JSON.stringify(r.body)).toBe(202);
      jobs.push(r.body.jobId as string);
    }
    // Every instance sees the jobs, not only the one that queued them.
    expect((await api(q3, "GET", `/api/v1/execute/jobs/${jobs[2]}`)).body).toMatchObject({ status: "queued", position: 3 });
    const metrics = (await api(q2, "GET", "/api/v1/metrics")).body as string;
    expect(gauge(metrics, "switchyard_execute_queue_durable")).toBe(1);

    q1.child.kill("SIGKILL");
    await new Promise((r) => q1.child.once("exit", r));

    await world.prisma.override.updateMany({ where: { endedAt: null }, data: { endedAt: new Date(), endReason: "test" } });
    await notifyConfigChange(world.prisma, { kind: "override" });
    // Wait until the survivors route again, then make the jobs due now instead of after the policy's retry-after.
    for (const inst of [q2, q3]) {
      for (let t = 0; ; t++) {
        const d = await api(inst, "POST", "/api/v1/decide", { operation: "SEND_SMS", region: "EU", requestId: `probe-${inst.name}-${t}` });
        if (d.body.selected) break;
        if (t > 100) throw new Error(`${inst.name} still routes nowhere`);
        await sleep(100);
      }
    }
    await world.prisma.executeJob.updateMany({ data: { notBefore: new Date() } });

    const answers = [];
    for (const id of jobs) {
      for (let t = 0; ; t++) {
        const poll = await api(q2, "GET", `/api/v1/execute/jobs/${id}`);
        expect(poll.status).toBe(200);
        if (poll.body.status === "done") {
          answers.push(poll.body);
          break;
        }
        if (t > 300) throw new Error(`job ${id} still ${poll.body.status}`);
        await sleep(50);
      }
    }
    expect(answers.map((a) => a.httpStatus)).toEqual([200, 200, 200]);
    // Once each: three provider calls for three jobs, whoever ran them.
    await sleep(1_000);
    expect(providerCalls()).toBe(3);
    // Each call carries its job's key, the same on any instance: a run repeated after a death mid-call sends it again.
    const keys = [...world.mocks.provider_A.requests, ...world.mocks.provider_B.requests].map((r) => r.headers["idempotency-key"]);
    expect(keys.sort()).toEqual(jobs.map(jobIdempotencyKey).sort());
    const rows = await world.prisma.executeJob.findMany({ where: { id: { in: jobs } } });
    expect(rows.map((r) => [r.status, r.attempts])).toEqual([
      ["done", 1],
      ["done", 1],
      ["done", 1],
    ]);
    expect(new Set(rows.map((r) => r.leaseOwner))).toEqual(new Set([null]));
  }, 120_000);
});
