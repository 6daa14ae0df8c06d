import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { createPrisma, type PrismaClient } from "../db/client";
import { createTestDatabase, type TTestDatabase } from "../../test/support/database";
import { asDatabaseOwner } from "../../test/support/audit-tamper";
import type { TActor } from "./actor";
import { appendAudit } from "./append-audit";
import { auditEntryMac, resolveAuditKey } from "./audit-key";
import { createAuditCheckpointer } from "./checkpointer";
import { auditCheckpointFile, readAuditCheckpoints } from "./checkpoints";
import { auditEntryHash } from "./hash";
import { verifyAuditChain } from "./verify-audit-chain";

/**
 * Rotating the audit key: the old key moves to SWITCHYARD_AUDIT_RETIRED_KEYS, new entries are
 * MACed with the new one, and the whole log still verifies. A retired key (say, one that leaked)
 * verifies the entries it MACed before the rotation but cannot add any once the grace window for
 * restarting instances has passed.
 */
const OLD = "o".repeat(16) + "0123456789abcdef0123456789abcdef";
const NEW = "n".repeat(16) + "fedcba9876543210fedcba9876543210";
const actor: TActor = { userId: null, label: "tester@test.local", ip: "10.0.0.1" };
const VARS = ["SWITCHYARD_AUDIT_KEY", "SWITCHYARD_AUDIT_KEY_FILE", "SWITCHYARD_AUDIT_RETIRED_KEYS", "SWITCHYARD_AUDIT_RETIRED_KEYS_FILE"] as const;
const saved = Object.fromEntries(VARS.map((v) => [v, process.env[v]]));

let db: TTestDatabase;
let prisma: PrismaClient;
let dir: string;

function useKeys(current: string, retired: string[] = []) {
  for (const v of VARS) delete process.env[v];
  process.env.SWITCHYARD_AUDIT_KEY = current;
  if (retired.length > 0) process.env.SWITCHYARD_AUDIT_RETIRED_KEYS = retired.join(",");
}

async function append(n: number, from: number) {
  for (let i = from; i < from + n; i++) {
    await prisma.$transaction((tx) => appendAudit(tx, actor, { action: "override.create", targetType: "override", targetId: `o${i}`, after: { n: i } }));
  }
}

/** What someone holding the database and a retired key can do: append an entry with any time, hashed and MACed as the product would. */
async function forgeWith(key: string, at: Date) {
  const head = (await prisma.auditEntry.findFirst({ orderBy: { seq: "desc" } }))!;
  const row = {
    seq: head.seq + 1,
    at,
    actorId: null,
    actor: "intruder@test.local",
    action: "override.end",
    targetType: "override",
    targetId: "o1",
    before: null,
    after: null,
    reason: "forged",
    ip: null,
    prevHash: head.hash,
  };
  const hash = auditEntryHash(row);
  await prisma.auditEntry.create({ data: { ...row, before: undefined, after: undefined, hash, mac: auditEntryMac(Buffer.from(key), hash) } });
}

beforeAll(async () => {
  db = await createTestDatabase();
  prisma = createPrisma(db.url);
});

afterAll(async () => {
  for (const v of VARS) {
    if (saved[v] === undefined) delete process.env[v];
    else process.env[v] = saved[v];
  }
  await prisma.$disconnect();
  await db.drop();
});

beforeEach(async () => {
  dir = mkdtempSync(path.join(tmpdir(), "sy-audit-rot-"));
  await asDatabaseOwner(prisma, "truncate audit_entry");
  useKeys(OLD);
  await append(3, 1);
});

afterEach(() => rmSync(dir, { recursive: true, force: true }));

describe("rotating the audit key", () => {
  it("MACs new entries with the new key and verifies the whole log with the retired one beside it", async () => {
    const checkpointer = () => createAuditCheckpointer({ prisma, databaseUrl: db.url, dir, intervalMs: 0, log: () => {} });
    await checkpointer().checkpointNow();
    useKeys(NEW, [OLD]);
    await append(2, 4);
    const rows = await prisma.auditEntry.findMany({ orderBy: { seq: "asc" } });
    expect(rows[3]!.mac).toBe(auditEntryMac(Buffer.from(NEW), rows[3]!.hash));
    const checkpoints = readAuditCheckpoints(auditCheckpointFile(dir, db.url));
    expect(await verifyAuditChain(prisma, { checkpoints })).toMatchObject({ ok: true, entries: 5, macs: "verified", retiredUntil: 3 });
    // The old code knew one key: every entry before the rotation read as rewritten.
    expect(await verifyAuditChain(prisma, { key: Buffer.from(NEW) })).toMatchObject({ ok: false, firstBreak: { seq: 1, problem: "mac_mismatch" } });
    // The server's own checkpoints verify with the retired key in place.
    expect((await checkpointer().checkpointNow()).error).toBeNull();
  });

  it("accepts an instance still on the retired key within the grace window, and not after it", async () => {
    useKeys(NEW, [OLD]);
    await append(1, 4);
    useKeys(OLD); // an instance not yet restarted
    await append(1, 5);
    useKeys(NEW, [OLD]);
    expect(await verifyAuditChain(prisma)).toMatchObject({ ok: true, entries: 5, retiredUntil: 5 });
    expect(await verifyAuditChain(prisma, { rotationGraceSeconds: 0 })).toMatchObject({ ok: false, firstBreak: { seq: 5, problem: "mac_retired_key" } });
  });

  it("refuses an entry forged with a retired key and back-dated into the grace window once newer-key entries passed it", async () => {
    useKeys(NEW, [OLD]);
    await append(1, 4);
    const rotatedAt = (await prisma.auditEntry.findUnique({ where: { seq: 4 } }))!.at;
    await new Promise((r) => setTimeout(r, 1_200));
    await append(1, 5);
    await forgeWith(OLD, rotatedAt);
    const verdict = await verifyAuditChain(prisma, { rotationGraceSeconds: 1 });
    expect(verdict).toMatchObject({ ok: false, firstBreak: { seq: 6, problem: "mac_retired_key" } });
    if (!verdict.ok) expect(verdict.firstBreak.detail).toMatch(/is MACed with the retired key [0-9a-f]{12} although entry 4/);
    // A key that was never configured is a plain mismatch.
    await asDatabaseOwner(prisma, "delete from audit_entry where seq = 6");
    await forgeWith("x".repeat(48), new Date());
    expect(await verifyAuditChain(prisma)).toMatchObject({ ok: false, firstBreak: { seq: 6, problem: "mac_mismatch" } });
  });

  it("refuses a short retired key, and retired keys without a current one", () => {
    for (const v of VARS) delete process.env[v];
    process.env.SWITCHYARD_AUDIT_KEY = NEW;
    process.env.SWITCHYARD_AUDIT_RETIRED_KEYS = `${OLD},short`;
    expect(() => resolveAuditKey()).toThrow(/SWITCHYARD_AUDIT_RETIRED_KEYS \(key 2\): the audit key must be at least 32 characters/);
    delete process.env.SWITCHYARD_AUDIT_KEY;
    process.env.SWITCHYARD_AUDIT_RETIRED_KEYS = OLD;
    expect(() => resolveAuditKey()).toThrow(/no current audit key/);
  });
});
