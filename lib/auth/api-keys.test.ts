import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createPrisma, type PrismaClient } from "../db/client";
import { createTestDatabase, type TTestDatabase } from "../testing/database";
import { createApiKey } from "../controlplane/create-api-key";
import { listApiKeys } from "../controlplane/list-api-keys";
import { revokeApiKey } from "../controlplane/revoke-api-key";
import { ControlPlaneError } from "../controlplane/errors";
import { makeUser, seedCatalog } from "../controlplane/test-fixtures";
import { CACHE_TTL_MS, forgetApiKey, verifyApiKey } from "./verify-api-key";

let db: TTestDatabase;
let prisma: PrismaClient;
let admin: Awaited<ReturnType<typeof makeUser>>;

beforeAll(async () => {
  db = await createTestDatabase();
  prisma = createPrisma(db.url);
  await seedCatalog(prisma);
  await prisma.operation.create({ data: { key: "SEND_EMAIL", description: "email" } });
  admin = await makeUser(prisma, ["admin"]);
});

afterAll(async () => {
  await prisma.$disconnect();
  await db.drop();
});

describe("API keys", () => {
  it("is shown once, stored hashed, and never listed", async () => {
    const { key, apiKey } = await createApiKey(prisma, admin.actor, { name: "checkout", scopes: ["decide"], operationKeys: [] });
    expect(key).toMatch(new RegExp(`^sy_${apiKey.prefix}_`));
    const row = await prisma.apiKey.findUniqueOrThrow({ where: { id: apiKey.id } });
    expect(row.keyHash).not.toContain(key.slice(12));
    expect(JSON.stringify(await listApiKeys(prisma))).not.toContain(row.keyHash);
    const audit = await prisma.auditEntry.findFirstOrThrow({ where: { targetId: apiKey.id } });
    expect(JSON.stringify(audit)).not.toContain(key);
  });

  it("enforces scopes and operation restrictions", async () => {
    const { key } = await createApiKey(prisma, admin.actor, { name: "sms", scopes: ["decide", "outcomes"], operationKeys: ["SEND_SMS"] });
    const ok = await verifyApiKey(prisma, key, "decide", "SEND_SMS");
    expect(ok).toMatchObject({ ok: true, principal: { kind: "api_key", name: "sms", operationKeys: ["SEND_SMS"] } });
    expect(await verifyApiKey(prisma, key, "outcomes")).toMatchObject({ ok: true });
    expect(await verifyApiKey(prisma, key, "read")).toMatchObject({ ok: false, status: 403 });
    expect(await verifyApiKey(prisma, key, "decide", "SEND_EMAIL")).toMatchObject({ ok: false, status: 403 });
    expect(await verifyApiKey(prisma, `${key}x`, "decide")).toMatchObject({ ok: false, status: 401 });
    expect(await verifyApiKey(prisma, undefined, "decide")).toMatchObject({ ok: false, status: 401 });
  });

  it("records last use in the background", async () => {
    const { key, apiKey } = await createApiKey(prisma, admin.actor, { name: "bg", scopes: ["read"], operationKeys: [] });
    expect(apiKey.lastUsedAt).toBeNull();
    await verifyApiKey(prisma, key, "read");
    await expect.poll(async () => (await prisma.apiKey.findUniqueOrThrow({ where: { id: apiKey.id } })).lastUsedAt, { timeout: 5000 }).not.toBeNull();
  });

  it("revocation takes effect at once in this process and within the cache TTL elsewhere", async () => {
    const { key, apiKey } = await createApiKey(prisma, admin.actor, { name: "old", scopes: ["decide"], operationKeys: [] });
    const t0 = Date.now();
    expect((await verifyApiKey(prisma, key, "decide", undefined, t0)).ok).toBe(true);
    await revokeApiKey(prisma, admin.actor, apiKey.id, "leaked");
    expect(await verifyApiKey(prisma, key, "decide", undefined, t0)).toMatchObject({ ok: false, status: 401 });

    // Another instance: its cache still holds the key as valid until the TTL passes.
    const { key: key2, apiKey: k2 } = await createApiKey(prisma, admin.actor, { name: "other", scopes: ["decide"], operationKeys: [] });
    expect((await verifyApiKey(prisma, key2, "decide", undefined, t0)).ok).toBe(true);
    await prisma.apiKey.update({ where: { id: k2.id }, data: { revokedAt: new Date() } });
    expect((await verifyApiKey(prisma, key2, "decide", undefined, t0 + 1)).ok).toBe(true);
    expect(await verifyApiKey(prisma, key2, "decide", undefined, t0 + CACHE_TTL_MS + 1)).toMatchObject({ ok: false, status: 401 });
    forgetApiKey();

    const again = await revokeApiKey(prisma, admin.actor, apiKey.id, null).catch((e: unknown) => e);
    expect(again).toBeInstanceOf(ControlPlaneError);
  });

  it("rejects unknown operations and empty scopes", async () => {
    const err = await createApiKey(prisma, admin.actor, { name: "x", scopes: ["decide"], operationKeys: ["NOPE"] }).catch((e: unknown) => e);
    expect(err).toMatchObject({ status: 422, fields: [{ path: "operationKeys.0" }] });
  });
});
