import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createPrisma, type PrismaClient } from "../db/client";
import { createTestDatabase, type TTestDatabase } from "../../test/support/database";
import { makeUser } from "../../test/support/controlplane-fixtures";
import { closeIncident } from "./close-incident";
import { trackIncidents } from "./track-incidents";

let db: TTestDatabase;
let prisma: PrismaClient;
let second: PrismaClient;

beforeAll(async () => {
  db = await createTestDatabase();
  prisma = createPrisma(db.url);
  second = createPrisma(db.url);
});

afterAll(async () => {
  await Promise.all([prisma.$disconnect(), second.$disconnect()]);
  await db.drop();
});

const now = Date.now();
const at = (sec: number) => new Date(now - 600_000 + sec * 1000);

async function shares(rows: [string, string, string, number][]): Promise<void> {
  for (const [o, r, p, s] of rows) {
    await prisma.trafficShare.upsert({
      where: { operationKey_region_providerKey: { operationKey: o, region: r, providerKey: p } },
      create: { operationKey: o, region: r, providerKey: p, share: s, updatedAt: new Date() },
      update: { share: s },
    });
  }
}

async function shiftEvent(sec: number, type: string, from: number, to: number, region = "EU", provider = "provider_A"): Promise<void> {
  await prisma.shiftEvent.create({
    data: {
      at: at(sec),
      operationKey: "SEND_SMS",
      region,
      type,
      providerKey: provider,
      sharesFrom: { [provider]: from, provider_B: 1 - from },
      sharesTo: { [provider]: to, provider_B: 1 - to },
      capped: true,
      detail: type,
      evidence: [],
    },
  });
}

async function breakerEvent(sec: number, from: string, to: string, region = "EU", provider = "provider_A"): Promise<void> {
  await prisma.breakerEvent.create({
    data: {
      providerKey: provider,
      region,
      fromState: from,
      toState: to,
      reason: "consecutive_failures",
      detail: "5 consecutive failures, last: timeout",
      instanceId: "i1",
      at: at(sec),
    },
  });
}

describe("trackIncidents", () => {
  it("records one incident from two writers racing over the same facts, steps compressed, each fact once", async () => {
    // The cursor row exists (a first run before any fact), so only its row lock keeps the writers apart.
    expect(await trackIncidents(prisma, new Date(now))).toMatchObject({ facts: 0 });
    await shares([
      ["SEND_SMS", "EU", "provider_A", 0.99],
      ["SEND_SMS", "EU", "provider_B", 0.01],
      ["SEND_SMS", "APAC", "provider_C", 0.9],
    ]);
    await breakerEvent(10, "closed", "open");
    for (let i = 0; i < 4; i++) await shiftEvent(12 + i * 2, "circuit_open_shift_to_secondary", 0.99 - i * 0.2, 0.79 - i * 0.2);
    await breakerEvent(20, "closed", "open", "APAC", "provider_C");

    // Both clients connected first, so the two transactions really overlap.
    await Promise.all([prisma.$queryRaw`select 1`, second.$queryRaw`select 1`]);
    const results = await Promise.all([trackIncidents(prisma, new Date(now)), trackIncidents(second, new Date(now))]);
    expect(results.map((r) => r.facts).sort()).toEqual([0, 6]);

    const incidents = await prisma.incident.findMany({ orderBy: { startedAt: "asc" } });
    expect(incidents.map((i) => [i.region, i.providerKey, i.causeKind, i.startedAt.getTime(), i.state])).toEqual([
      ["EU", "provider_A", "breaker_open", at(10).getTime(), "open"],
      ["APAC", "provider_C", "breaker_open", at(20).getTime(), "open"],
    ]);
    const steps = await prisma.incidentStep.findMany({ where: { incidentId: incidents[0]!.id } });
    expect(steps.map((x) => [x.phase, x.ticks])).toEqual([["away", 4]]);
    expect(await prisma.incidentFact.count()).toBe(2);
    const events = await prisma.notificationEvent.findMany({ orderBy: { createdAt: "asc" } });
    expect(events.map((e) => [e.kind, e.region])).toEqual([
      ["incident.opened", "EU"],
      ["incident.opened", "APAC"],
    ]);

    // Nothing new: a third run changes nothing.
    expect(await trackIncidents(prisma, new Date(now))).toMatchObject({ facts: 0, opened: 0, updated: 0 });
  });

  it("keeps recovery and failback in the incident that caused them and resolves it at failback", async () => {
    await shiftEvent(100, "recovery_detected", 0.01, 0.05);
    await shiftEvent(102, "cooldown_started", 0.05, 0.05);
    await trackIncidents(prisma, new Date(now));
    await shiftEvent(120, "failback_step", 0.05, 0.5);
    await shiftEvent(122, "full_failback_completed", 0.5, 0.99);
    await trackIncidents(prisma, new Date(now));
    const eu = await prisma.incident.findFirstOrThrow({ where: { region: "EU" } });
    expect(eu).toMatchObject({ state: "resolved", endReason: "failback_done", recoveredAt: at(100), failbackDoneAt: at(122), endedAt: at(122) });
    expect(await prisma.incident.count({ where: { region: "EU" } })).toBe(1);
    const steps = await prisma.incidentStep.findMany({ where: { incidentId: eu.id }, orderBy: { seq: "asc" } });
    expect(steps.map((x) => [x.phase, x.ticks])).toEqual([
      ["away", 4],
      ["recovery", 2],
      ["failback", 2],
    ]);
    const kinds = (await prisma.notificationEvent.findMany({ where: { incidentId: eu.id }, orderBy: { createdAt: "asc" } })).map((e) => e.kind);
    expect(kinds).toEqual(["incident.opened", "incident.updated", "incident.resolved"]);
  });

  it("lets an operator close an open incident, once, with an audit entry and a resolve notification", async () => {
    const admin = await makeUser(prisma, ["on_call"]);
    const apac = await prisma.incident.findFirstOrThrow({ where: { region: "APAC" } });
    const closed = await closeIncident(prisma, admin.actor, apac.id, "provider C confirmed fixed");
    expect(closed).toMatchObject({ state: "resolved", endReason: "operator" });
    await expect(closeIncident(prisma, admin.actor, apac.id, "again")).rejects.toMatchObject({ status: 409 });
    expect(await prisma.auditEntry.count({ where: { action: "incident.close", targetId: apac.id } })).toBe(1);
    expect(await prisma.notificationEvent.count({ where: { incidentId: apac.id, kind: "incident.resolved" } })).toBe(1);
    // The tracker does not reopen it from the facts it already applied.
    await trackIncidents(prisma, new Date(now));
    expect((await prisma.incident.findUniqueOrThrow({ where: { id: apac.id } })).state).toBe("resolved");
  });

  it("reads each fact once when ids cross a digit boundary (ordered as numbers, not text)", async () => {
    await shares([["SEND_SMS", "NA", "provider_A", 0.9]]);
    await breakerEvent(200, "closed", "open", "NA");
    for (let i = 0; i < 12; i++) await shiftEvent(202 + i, "circuit_open_shift_to_secondary", 0.9 - i * 0.05, 0.85 - i * 0.05, "NA");
    await trackIncidents(prisma, new Date(now));
    await trackIncidents(prisma, new Date(now));
    const na = await prisma.incident.findFirstOrThrow({ where: { region: "NA" } });
    const steps = await prisma.incidentStep.findMany({ where: { incidentId: na.id } });
    expect(steps.map((x) => x.ticks)).toEqual([12]);
  });
});
