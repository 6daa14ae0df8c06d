import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createPrisma, type PrismaClient } from "../../db/client";
import { createTestDatabase, type TTestDatabase } from "../../../test/support/database";
import { listChartMarks } from "./list-chart-marks";

/**
 * Issue 38 item 5: a fault is a provider's in one region. It is marked on the charts of the
 * operations routing to that provider in that region, not on every chart of the region.
 */
let db: TTestDatabase;
let prisma: PrismaClient;
const NOW = Date.now();

beforeAll(async () => {
  db = await createTestDatabase();
  process.env.DATABASE_URL = db.url;
  prisma = createPrisma(db.url);
  const fault = (providerKey: string, region: string) => ({
    providerKey,
    region,
    kind: "outage",
    magnitude: 1,
    startsAt: new Date(NOW - 10 * 60_000),
    endsAt: new Date(NOW - 5 * 60_000),
    createdBy: "chaos",
  });
  await prisma.demoFault.createMany({ data: [fault("provider_A", "EU"), fault("provider_D", "EU"), fault("provider_A", "US")] });
});

afterAll(async () => {
  await prisma.$disconnect();
  await db.drop();
});

describe("listChartMarks fault markers", () => {
  it("marks only faults of the chart's providers in the chart's region", async () => {
    const sms = await listChartMarks("SEND_SMS", "EU", NOW - 3_600_000, NOW, ["provider_A", "provider_B", "provider_C"]);
    expect(sms.filter((m) => m.kind === "fault").map((m) => m.label)).toEqual(["fault injected: outage provider_A EU", "fault ended: outage provider_A EU"]);
    const email = await listChartMarks("SEND_EMAIL", "EU", NOW - 3_600_000, NOW, ["provider_C", "provider_D", "provider_E"]);
    expect(email.filter((m) => m.kind === "fault").map((m) => m.provider)).toEqual(["provider_D", "provider_D"]);
    const none = await listChartMarks("LLM_CHAT", "EU", NOW - 3_600_000, NOW, ["llm_openai"]);
    expect(none.filter((m) => m.kind === "fault")).toEqual([]);
  });
});
