import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createApiKey } from "../controlplane/api-keys/create-api-key";
import { SYSTEM_ACTOR } from "../audit/actor";
import { createPrisma, type PrismaClient } from "../db/client";
import { applyMigrations } from "../db/migrate";
import { createTestDatabase, type TTestDatabase } from "../../test/support/database";
import { startServerInstance, type TServerInstance } from "../../test/support/server-instances";

/**
 * Issue 35 item 11: a production instance (keys required) tells a caller without a key only
 * whether it is ok; the detailed health and the Prometheus metrics, which name operations,
 * providers, breakers and files, need a key with the metrics scope.
 */
let db: TTestDatabase;
let prisma: PrismaClient;
let spoolRoot: string;
let inst: TServerInstance;
const BOOTSTRAP = `health-test-${process.pid}`;
let metricsKey: string;
let decideKey: string;

beforeAll(async () => {
  db = await createTestDatabase();
  await applyMigrations(db.url);
  prisma = createPrisma(db.url);
  metricsKey = (await createApiKey(prisma, SYSTEM_ACTOR, { name: "prometheus", scopes: ["metrics"], operationKeys: [] })).key;
  decideKey = (await createApiKey(prisma, SYSTEM_ACTOR, { name: "a-service", scopes: ["decide", "outcomes", "read"], operationKeys: [] })).key;
  spoolRoot = await mkdtemp(path.join(tmpdir(), "switchyard-health-"));
  inst = await startServerInstance({ name: "health", databaseUrl: db.url, apiKey: BOOTSTRAP, spoolRoot });
}, 120_000);

afterAll(async () => {
  inst?.child.kill("SIGTERM");
  await new Promise((r) => inst?.child.once("exit", r));
  await prisma?.$disconnect();
  await db?.drop();
  await rm(spoolRoot, { recursive: true, force: true });
});

async function get(route: string, key?: string): Promise<{ status: number; text: string }> {
  const res = await fetch(`${inst.url}${route}`, { headers: key ? { authorization: `Bearer ${key}` } : {} });
  return { status: res.status, text: await res.text() };
}

describe("GET /api/v1/health and /api/v1/metrics with keys required", () => {
  it("answers a caller without a key only its status", async () => {
    const h = await get("/api/v1/health");
    expect(h.status).toBe(200);
    expect(JSON.parse(h.text)).toEqual({ status: "ok" });
  });

  it("refuses the metrics to a caller without a key, and both to a key without the metrics scope", async () => {
    const anonymous = await get("/api/v1/metrics");
    expect([anonymous.status, JSON.parse(anonymous.text).error.code]).toEqual([401, "unauthenticated"]);
    expect(anonymous.text).not.toContain("switchyard_");
    for (const route of ["/api/v1/metrics", "/api/v1/health"]) {
      const r = await get(route, decideKey);
      expect([route, r.status]).toEqual([route, 403]);
      expect(r.text).not.toMatch(/breaker|checkpoint|operation/);
    }
  });

  it("gives the whole report and the metrics to a metrics key and to the bootstrap key", async () => {
    for (const key of [metricsKey, BOOTSTRAP]) {
      const h = JSON.parse((await get("/api/v1/health", key)).text);
      expect(h).toMatchObject({ status: "ok", database: { status: "up" }, telemetry: expect.any(Object), dataplane: expect.any(Object) });
      const m = await get("/api/v1/metrics", key);
      expect(m.status).toBe(200);
      expect(m.text).toContain("# TYPE switchyard_decisions_total counter");
    }
  });
});
