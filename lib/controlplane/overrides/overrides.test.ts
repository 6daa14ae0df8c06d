import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createPrisma, type PrismaClient } from "../../db/client";
import { createTestDatabase, type TTestDatabase } from "../../../test/support/database";
import { verifyAuditChain } from "../../audit/verify-audit-chain";
import { createOverride } from "./create-override";
import { endExpiredOverrides } from "./end-expired-overrides";
import { endOverride } from "./end-override";
import { listOverrides } from "./list-overrides";
import { makeUser, seedCatalog, refusal } from "../../../test/support/controlplane-fixtures";

let db: TTestDatabase;
let prisma: PrismaClient;
let onCall: Awaited<ReturnType<typeof makeUser>>;

beforeAll(async () => {
  db = await createTestDatabase();
  prisma = createPrisma(db.url);
  await seedCatalog(prisma);
  await prisma.provider.create({ data: { key: "provider_D", displayName: "D", supportedRegions: ["EU"], complianceTags: [], costPerRequest: "0.01" } });
  onCall = await makeUser(prisma, ["on_call"]);
});

afterAll(async () => {
  await prisma.$disconnect();
  await db.drop();
});

const inMinutes = (m: number, from = new Date()) => new Date(from.getTime() + m * 60_000).toISOString();

describe("overrides", () => {
  it("creates a kill switch with a reason, notifies, audits, and refuses a duplicate", async () => {
    const o = await createOverride(prisma, onCall.actor, {
      kind: "routing_kill_switch",
      operationKey: "SEND_SMS",
      reason: "provider A incident, adaptive off",
    });
    expect(o).toMatchObject({ kind: "routing_kill_switch", operationKey: "SEND_SMS", endedAt: null, createdById: onCall.user.id });
    const entry = await prisma.auditEntry.findFirstOrThrow({ where: { targetId: o.id } });
    expect(entry).toMatchObject({ action: "override.create", actor: onCall.actor.label, reason: "provider A incident, adaptive off", ip: "127.0.0.1" });
    const dup = await refusal(createOverride(prisma, onCall.actor, { kind: "routing_kill_switch", operationKey: "SEND_SMS", reason: "again" }));
    expect([dup.status, dup.code]).toEqual([409, "override_exists"]);
    await endOverride(prisma, onCall.actor, o.id, "incident over");
    expect((await refusal(endOverride(prisma, onCall.actor, o.id, "twice"))).status).toBe(409);
  });

  it("refuses a pin to a provider the operation does not list and an expiry in the past, reporting both", async () => {
    const err = await refusal(
      createOverride(prisma, onCall.actor, {
        kind: "provider_pin",
        operationKey: "SEND_SMS",
        providerKey: "provider_D",
        reason: "try D",
        expiresAt: inMinutes(-5),
      }),
    );
    expect(err.status).toBe(422);
    expect(err.fields.map((f) => f.path).sort()).toEqual(["expiresAt", "providerKey"]);
    const unlisted = await refusal(
      createOverride(prisma, onCall.actor, {
        kind: "provider_pin",
        operationKey: "SEND_SMS",
        providerKey: "provider_D",
        reason: "try D",
        expiresAt: inMinutes(30),
      }),
    );
    expect(unlisted.fields).toEqual([{ path: "providerKey", message: expect.stringContaining("does not list provider_D") }]);
    const unknown = await refusal(
      createOverride(prisma, onCall.actor, { kind: "provider_kill", providerKey: "nope", operationKey: "NOPE", reason: "x y z", expiresAt: inMinutes(-1) }),
    );
    expect(unknown.fields.map((f) => f.path).sort()).toEqual(["expiresAt", "operationKey", "providerKey"]);
    const wrongRegion = await refusal(
      createOverride(prisma, onCall.actor, {
        kind: "provider_pin",
        operationKey: "SEND_SMS",
        providerKey: "provider_A",
        region: "LATAM",
        reason: "pin A",
        expiresAt: inMinutes(30),
      }),
    );
    expect(wrongRegion.fields.map((f) => f.path)).toEqual(["region"]);
    expect(await prisma.override.count({ where: { providerKey: { in: ["provider_D", "nope"] } } })).toBe(0);
  });

  it("refuses a region the catalogue does not know for the override's scope, for every kind, naming the field", async () => {
    const payload = "<img src=x onerror=alert(1)>";
    const bodies = [
      { kind: "routing_kill_switch", operationKey: "SEND_SMS", region: payload, reason: "xss probe" },
      { kind: "provider_kill", providerKey: "provider_A", region: payload, reason: "xss probe" },
      { kind: "provider_kill", providerKey: "provider_D", operationKey: "SEND_SMS", region: "NA", reason: "D serves EU only" },
      { kind: "provider_pin", operationKey: "SEND_SMS", providerKey: "provider_B", region: "eu", reason: "regions are exact", expiresAt: inMinutes(30) },
      { kind: "routing_kill_switch", operationKey: "SEND_SMS", region: "MARS", reason: "no SEND_SMS provider serves it" },
    ] as const;
    for (const body of bodies) {
      const err = await refusal(createOverride(prisma, onCall.actor, body));
      expect([err.status, err.code, err.fields.map((f) => f.path)], JSON.stringify(body)).toEqual([422, "invalid", ["region"]]);
    }
    expect(await prisma.override.count({ where: { region: { in: [payload, "eu", "MARS"] } } })).toBe(0);
    // Known regions still go through, for a scope without a provider too.
    const kill = await createOverride(prisma, onCall.actor, {
      kind: "routing_kill_switch",
      operationKey: "SEND_SMS",
      region: "APAC",
      reason: "APAC adaptive off",
    });
    expect(kill.region).toBe("APAC");
    await endOverride(prisma, onCall.actor, kill.id, "done");
  });

  it("refuses a pin without an expiry or beyond the configured maximum with 422 naming expiresAt", async () => {
    const pin = { kind: "provider_pin", operationKey: "SEND_SMS", providerKey: "provider_B", region: "EU", reason: "B while A is flaky" } as const;
    const none = await refusal(createOverride(prisma, onCall.actor, pin));
    expect([none.status, none.fields]).toEqual([422, [{ path: "expiresAt", message: expect.stringContaining("needs an expiry") }]]);
    const now = new Date();
    const limits = { pinMaxExpiryMs: 2 * 3_600_000 };
    const tooLong = await refusal(createOverride(prisma, onCall.actor, { ...pin, expiresAt: inMinutes(121, now) }, now, limits));
    expect([tooLong.status, tooLong.fields]).toEqual([422, [{ path: "expiresAt", message: expect.stringContaining("at most 2 h") }]]);
    const dayAndMore = await refusal(createOverride(prisma, onCall.actor, { ...pin, expiresAt: inMinutes(24 * 60 + 1, now) }, now));
    expect(dayAndMore.fields.map((f) => f.path)).toEqual(["expiresAt"]);
    expect(await prisma.override.count({ where: { kind: "provider_pin", endedAt: null, providerKey: "provider_B" } })).toBe(0);
    const ok = await createOverride(prisma, onCall.actor, { ...pin, expiresAt: inMinutes(120, now) }, now, limits);
    await endOverride(prisma, onCall.actor, ok.id, "checked the limit");
  });

  it("pins a listed provider per region with an expiry", async () => {
    const pin = await createOverride(prisma, onCall.actor, {
      kind: "provider_pin",
      operationKey: "SEND_SMS",
      providerKey: "provider_B",
      region: "EU",
      reason: "A degraded in EU",
      expiresAt: inMinutes(30),
    });
    expect(pin.expiresAt).not.toBeNull();
    const active = await listOverrides(prisma, { state: "active" });
    expect(active.map((o) => o.id)).toContain(pin.id);
  });

  it("expired overrides end by themselves, logged as system, once", async () => {
    const now = new Date();
    const kill = await createOverride(
      prisma,
      onCall.actor,
      { kind: "provider_kill", providerKey: "provider_C", reason: "C quota exhausted", expiresAt: inMinutes(1, now) },
      now,
    );
    const later = new Date(now.getTime() + 2 * 60_000);
    expect(await endExpiredOverrides(prisma, new Date(now.getTime() + 30_000))).not.toContain(kill.id);
    const ended = await endExpiredOverrides(prisma, later);
    expect(ended).toContain(kill.id);
    const row = await prisma.override.findUniqueOrThrow({ where: { id: kill.id } });
    expect(row).toMatchObject({ endReason: "expired", endedById: null });
    expect(row.endedAt?.getTime()).toBe(later.getTime());
    const entry = await prisma.auditEntry.findFirstOrThrow({ where: { targetId: kill.id, action: "override.expire" } });
    expect(entry).toMatchObject({ actor: "system", actorId: null });
    expect(await endExpiredOverrides(prisma, later)).toEqual([]);
    expect((await listOverrides(prisma, { state: "active" }, later)).map((o) => o.id)).not.toContain(kill.id);
    expect((await verifyAuditChain(prisma)).ok).toBe(true);
  });
});
