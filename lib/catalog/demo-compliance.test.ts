/* eslint-disable @typescript-eslint/no-explicit-any -- decision records are asserted field by field */
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createPrisma, type PrismaClient } from "../db/client";
import { seedDemo } from "../demo/seed-demo";
import { createTestDatabase, type TTestDatabase } from "../../test/support/database";
import { dataPlaneSettings } from "../dataplane/settings";
import { startStandaloneDataPlane, type TStandaloneServer } from "../../test/support/standalone-dataplane";

/** The demo world is truthful: EU SMS requires gdpr, so provider_C (SOC 2 only) never serves it. */
let db: TTestDatabase;
let prisma: PrismaClient;
let server: TStandaloneServer;
let spoolDir: string;

beforeAll(async () => {
  db = await createTestDatabase();
  prisma = createPrisma(db.url);
  spoolDir = await mkdtemp(path.join(tmpdir(), "sy-demo-compliance-"));
  server = await startStandaloneDataPlane({ databaseUrl: db.url, settings: { ...dataPlaneSettings({}, process.cwd()), spoolDir } });
});

afterAll(async () => {
  await server?.close();
  await prisma?.$disconnect();
  await db?.drop();
  await rm(spoolDir, { recursive: true, force: true });
});

async function decide(region: string, requestId: string) {
  const res = await fetch(`${server.url}/api/v1/decide`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ operation: "SEND_SMS", region, requestId, explain: "full" }),
  });
  expect(res.status).toBe(200);
  return (await res.json()) as any;
}

describe("demo world compliance", () => {
  it("provider_C never serves EU SMS, and the gate says what EU requires and what C holds", async () => {
    const picks = new Set<string>();
    let first: any = null;
    for (let i = 0; i < 40; i++) {
      const d = await decide("EU", `demo-eu-${i}`);
      first ??= d;
      picks.add(d.selected);
    }
    expect(picks.has("provider_C")).toBe(false);
    const c = first.candidates.find((x: any) => x.provider === "provider_C");
    expect(c.gates.find((g: any) => g.gate === "compliance_allowed")).toMatchObject({
      passed: false,
      detail: "provider lacks required compliance: gdpr (EU requires gdpr; provider holds soc2)",
    });
    // Outside the EU it remains a candidate.
    const na = await decide("NA", "demo-na-1");
    expect(na.candidates.find((x: any) => x.provider === "provider_C").gates.find((g: any) => g.gate === "compliance_allowed").passed).toBe(true);
  });

  it("a demo database seeded before regional requirements gets EU: gdpr once, unless someone edited the operation", async () => {
    await prisma.operation.update({ where: { key: "SEND_SMS" }, data: { regionRequirements: {} } });
    await seedDemo(prisma);
    expect((await prisma.operation.findUniqueOrThrow({ where: { key: "SEND_SMS" } })).regionRequirements).toEqual({ EU: ["gdpr"] });
    await prisma.operation.update({ where: { key: "SEND_SMS" }, data: { regionRequirements: {}, version: 2 } });
    await seedDemo(prisma);
    expect((await prisma.operation.findUniqueOrThrow({ where: { key: "SEND_SMS" } })).regionRequirements).toEqual({});
  });
});
