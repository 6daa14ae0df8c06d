import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTelemetryDatabase } from "../../../test/support/telemetry-fixtures";
import { callInstance, startServerInstance, type TServerInstance } from "../../../test/support/server-instances";

/**
 * Three real server processes on one database; SEND_SMS's leader in EU, provider_A, has a
 * catalogued quota of 100 requests per hour. Decisions spread round-robin over the three must
 * route at most 100 to provider_A in the window (the old code routed each instance's own 100 or,
 * before quotas were enforced at all, nearly every decision), and the rest elsewhere.
 */
const KEY = "cluster-quota-key";
let env: Awaited<ReturnType<typeof createTelemetryDatabase>>;
let spoolRoot: string;
const cluster: TServerInstance[] = [];

beforeAll(async () => {
  env = await createTelemetryDatabase();
  await env.prisma.provider.update({
    where: { key: "provider_A" },
    data: { quotas: [{ unit: "requests", limit: 100, windowSeconds: 3_600, reset: "fixed" }] },
  });
  spoolRoot = await mkdtemp(path.join(tmpdir(), "switchyard-cluster-quota-"));
  for (const name of ["u1", "u2", "u3"]) {
    cluster.push(await startServerInstance({ name, databaseUrl: env.db.url, apiKey: KEY, spoolRoot }));
  }
}, 180_000);

afterAll(async () => {
  for (const i of cluster) if (i.child.exitCode === null) i.child.kill("SIGKILL");
  await env?.close();
  await rm(spoolRoot, { recursive: true, force: true });
});

describe("a provider's call quota on three instances", () => {
  it("admits 100 calls per window across the cluster, not 100 per instance", async () => {
    const routed: Record<string, number> = {};
    let decisions = 0;
    for (let n = 0; n < 600; n++) {
      const inst = cluster[n % 3]!;
      const d = await callInstance(inst, KEY, "POST", "/api/v1/decide", { operation: "SEND_SMS", region: "EU", requestId: `quota-${n}` });
      expect(d.status).toBe(200);
      decisions++;
      routed[d.body.selected ?? "none"] = (routed[d.body.selected ?? "none"] ?? 0) + 1;
    }
    const admitted = routed.provider_A ?? 0;
    console.log(`cluster quota on 3 instances: ${decisions} decisions, provider_A ${admitted} (limit 100), routed ${JSON.stringify(routed)}`);
    expect(admitted).toBeLessThanOrEqual(100);
    // Blocks of 100 / (8 × 3) = 4: the blocks instances hold unspent when the window runs dry.
    expect(admitted).toBeGreaterThanOrEqual(100 - 3 * 2 * 4);
    const health = await callInstance(cluster[1]!, KEY, "GET", "/api/v1/health");
    expect(health.body.dataplane.quotas).toMatchObject({ shared: true });
    const last = await callInstance(cluster[2]!, KEY, "POST", "/api/v1/decide", {
      operation: "SEND_SMS",
      region: "EU",
      requestId: "quota-last",
      explain: "full",
    });
    const gate = last.body.candidates
      .find((c: { provider: string }) => c.provider === "provider_A")
      .gates.find((g: { gate: string }) => g.gate === "quota_available");
    expect(gate).toMatchObject({ passed: false });
    expect(gate.detail).toContain("100 requests per 3600 s quota exhausted");
  }, 180_000);
});
