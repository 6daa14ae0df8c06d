import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createPrisma, type PrismaClient } from "../db/client";
import { freePort } from "../../test/support/free-port";
import { createTestDatabase, type TTestDatabase } from "../../test/support/database";
import { createApiKey } from "../controlplane/api-keys/create-api-key";
import { listApiKeys } from "../controlplane/api-keys/list-api-keys";
import { revokeApiKey } from "../controlplane/api-keys/revoke-api-key";
import { ContractError } from "../errors/api-errors";
import { makeUser, seedCatalog } from "../../test/support/controlplane-fixtures";
import { CACHE_TTL_MS, REFRESH_AFTER_MS, forgetApiKey, verifyApiKey } from "./verify-api-key";

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

type TKeyReader = Pick<PrismaClient, "apiKey">;

/** `inner`'s apiKey reads, counted; each waits for `gate` before it is sent. */
function countedReads(inner: TKeyReader) {
  const counted = {
    reads: 0,
    gate: Promise.resolve(),
    prisma: {
      apiKey: {
        findUnique: async (args: Parameters<PrismaClient["apiKey"]["findUnique"]>[0]) => {
          counted.reads++;
          await counted.gate;
          return inner.apiKey.findUnique(args);
        },
        update: (args: Parameters<PrismaClient["apiKey"]["update"]>[0]) => inner.apiKey.update(args),
      },
    } as unknown as TKeyReader,
  };
  return counted;
}

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
    expect(again).toBeInstanceOf(ContractError);
  });

  it("reads a key once for concurrent calls, and re-reads it in the background while it is in use", async () => {
    const { key, apiKey } = await createApiKey(prisma, admin.actor, { name: "busy", scopes: ["decide"], operationKeys: [] });
    forgetApiKey();
    const db = countedReads(prisma);
    const t0 = Date.now();
    const first = await Promise.all(Array.from({ length: 50 }, () => verifyApiKey(db.prisma, key, "decide", undefined, t0)));
    expect(first.every((v) => v.ok)).toBe(true);
    expect(db.reads).toBe(1);

    // Past REFRESH_AFTER_MS the calls are answered from the cache while one read runs behind them
    // (held at the gate here, so an answer that waited for it could not have arrived).
    let open!: () => void;
    db.gate = new Promise<void>((resolve) => (open = resolve));
    const later = t0 + REFRESH_AFTER_MS + 1;
    const during = await Promise.all(Array.from({ length: 20 }, () => verifyApiKey(db.prisma, key, "decide", undefined, later)));
    expect(during.every((v) => v.ok)).toBe(true);
    expect(db.reads).toBe(2);

    // Revoked elsewhere meanwhile: the background read brings it in before the TTL runs out.
    await prisma.apiKey.update({ where: { id: apiKey.id }, data: { revokedAt: new Date() } });
    open();
    await expect.poll(async () => (await verifyApiKey(db.prisma, key, "decide", undefined, later + 1)).ok).toBe(false);
    expect(db.reads).toBe(2);
    forgetApiKey();
  });

  it("keeps answering for a key it has read while the database is unreachable, and refuses an unread key with 503", async () => {
    const { key } = await createApiKey(prisma, admin.actor, { name: "known", scopes: ["decide"], operationKeys: [] });
    const { key: unread } = await createApiKey(prisma, admin.actor, { name: "unread", scopes: ["decide"], operationKeys: [] });
    forgetApiKey();
    const t0 = Date.now();
    expect((await verifyApiKey(prisma, key, "decide", undefined, t0)).ok).toBe(true);

    const unreachable = createPrisma(`postgresql://switchyard@127.0.0.1:${await freePort()}/switchyard`);
    try {
      const down = countedReads(unreachable);
      const expired = t0 + CACHE_TTL_MS + 1;
      expect((await verifyApiKey(down.prisma, key, "decide", undefined, expired)).ok).toBe(true);
      expect(down.reads).toBe(1);
      // Within a second of the failed read: the last row answers without another attempt.
      expect((await verifyApiKey(down.prisma, key, "decide", undefined, expired + 500)).ok).toBe(true);
      expect(down.reads).toBe(1);
      // Later: still answered at once, while another read is tried in the background.
      expect((await verifyApiKey(down.prisma, key, "decide", undefined, expired + 1_500)).ok).toBe(true);
      expect(down.reads).toBe(2);

      const refused = await verifyApiKey(down.prisma, unread, "decide", undefined, expired);
      expect(refused).toMatchObject({ ok: false, status: 503 });
      expect(refused.ok === false && refused.reason).toMatch(/cannot verify the API key: the database did not answer/);
    } finally {
      await unreachable.$disconnect();
    }

    // Reachable again: a call past the retry interval re-reads (once the background read against
    // the unreachable server has failed), and the unread key is known.
    const up = countedReads(prisma);
    const back = t0 + CACHE_TTL_MS + 3_000;
    await expect.poll(async () => (await verifyApiKey(up.prisma, key, "decide", undefined, back)).ok && up.reads).toBe(1);
    expect((await verifyApiKey(prisma, unread, "decide", undefined, t0)).ok).toBe(true);
    forgetApiKey();
  });

  it("rejects unknown operations and empty scopes", async () => {
    const err = await createApiKey(prisma, admin.actor, { name: "x", scopes: ["decide"], operationKeys: ["NOPE"] }).catch((e: unknown) => e);
    expect(err).toMatchObject({ status: 422, fields: [{ path: "operationKeys.0" }] });
  });
});
