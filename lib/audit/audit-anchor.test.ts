import { execFile } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { createPrisma, type PrismaClient } from "../db/client";
import { createTestDatabase, type TTestDatabase } from "../../test/support/database";
import type { TActor } from "./actor";
import { appendAudit } from "./append-audit";
import { createAuditCheckpointer } from "./checkpointer";
import { auditCheckpointFile, readAuditCheckpoints } from "./checkpoints";
import { asDatabaseOwner, rewriteChainFrom } from "../../test/support/audit-tamper";
import { verifyAuditChain } from "./verify-audit-chain";

// Issue 25, item 7: an attacker with write access to the database (not to the audit key, not
// to the checkpoint directory) rewrites the audit log.

const KEY = "k".repeat(16) + "0123456789abcdef0123456789abcdef";
const actor: TActor = { userId: null, label: "tester@test.local", ip: "10.0.0.1" };
const savedEnv = { key: process.env.SWITCHYARD_AUDIT_KEY, file: process.env.SWITCHYARD_AUDIT_KEY_FILE };

let db: TTestDatabase;
let prisma: PrismaClient;
let dir: string;

function setKey(key: string | undefined) {
  if (key === undefined) delete process.env.SWITCHYARD_AUDIT_KEY;
  else process.env.SWITCHYARD_AUDIT_KEY = key;
}

async function append(n: number, from = 1) {
  for (let i = from; i < from + n; i++) {
    await prisma.$transaction((tx) =>
      appendAudit(tx, actor, { action: "override.create", targetType: "override", targetId: `o${i}`, after: { n: i }, reason: `reason ${i}` }),
    );
  }
}

const checkpointer = () => createAuditCheckpointer({ prisma, databaseUrl: db.url, dir, intervalMs: 0, log: () => {} });
const checkpoints = () => readAuditCheckpoints(auditCheckpointFile(dir, db.url));

beforeAll(async () => {
  db = await createTestDatabase();
  prisma = createPrisma(db.url);
});

afterAll(async () => {
  setKey(savedEnv.key);
  if (savedEnv.file === undefined) delete process.env.SWITCHYARD_AUDIT_KEY_FILE;
  else process.env.SWITCHYARD_AUDIT_KEY_FILE = savedEnv.file;
  await prisma.$disconnect();
  await db.drop();
});

beforeEach(async () => {
  delete process.env.SWITCHYARD_AUDIT_KEY_FILE;
  setKey(KEY);
  dir = mkdtempSync(path.join(tmpdir(), "sy-audit-cp-"));
  await asDatabaseOwner(prisma, "truncate audit_entry");
  await append(5);
});

afterEach(() => rmSync(dir, { recursive: true, force: true }));

describe("the database refuses to rewrite audit rows", () => {
  it("refuses UPDATE, DELETE and TRUNCATE on audit_entry, even when they match no row", async () => {
    await expect(prisma.$executeRawUnsafe("update audit_entry set reason = 'nothing to see' where seq = 3")).rejects.toThrow(/append-only: UPDATE refused/);
    await expect(prisma.$executeRawUnsafe("update audit_entry set reason = 'x' where false")).rejects.toThrow(/append-only: UPDATE refused/);
    await expect(prisma.$executeRawUnsafe("delete from audit_entry where seq > 3")).rejects.toThrow(/append-only: DELETE refused/);
    await expect(prisma.$executeRawUnsafe("truncate audit_entry")).rejects.toThrow(/append-only: TRUNCATE refused/);
    await expect(prisma.auditEntry.deleteMany({})).rejects.toThrow(/append-only/);
    expect(await prisma.auditEntry.count()).toBe(5);
    // Appending is untouched.
    await append(1, 6);
    expect(await verifyAuditChain(prisma)).toMatchObject({ ok: true, entries: 6, macs: "verified" });
  });
});

describe("MACs with a key the database does not hold", () => {
  it("every entry carries an HMAC of its hash; an intact chain verifies", async () => {
    const rows = await prisma.auditEntry.findMany({ orderBy: { seq: "asc" } });
    expect(rows.every((r) => /^[0-9a-f]{64}$/.test(r.mac ?? ""))).toBe(true);
    expect(await verifyAuditChain(prisma)).toMatchObject({ ok: true, entries: 5, headSeq: 5, macs: "verified", unauthenticated: null });
  });

  it("detects entry 3 changed and every later hash recomputed with the product's hash function", async () => {
    await rewriteChainFrom(prisma, 3, "nothing to see");
    // The links all hold: the check the old code made passes …
    expect(await verifyAuditChain(prisma, { key: null })).toMatchObject({ ok: true });
    // … and the MAC of entry 3 gives it away.
    expect(await verifyAuditChain(prisma)).toMatchObject({ ok: false, entries: 2, firstBreak: { seq: 3, problem: "mac_mismatch" } });
  });

  it("detects the rewritten entries' MACs stripped", async () => {
    await rewriteChainFrom(prisma, 3, "nothing to see", "strip");
    expect(await verifyAuditChain(prisma)).toMatchObject({ ok: false, firstBreak: { seq: 3, problem: "mac_missing" } });
  });

  it("reports entries written before a key was configured, and verifies the MACed ones after them", async () => {
    await asDatabaseOwner(prisma, "truncate audit_entry");
    setKey(undefined);
    await append(2);
    setKey(KEY);
    await append(2, 3);
    expect(await verifyAuditChain(prisma)).toMatchObject({ ok: true, entries: 4, unauthenticated: { from: 1, to: 2 } });
  });

  it("refuses a key shorter than 32 characters before taking the chain's lock", async () => {
    setKey("short");
    await expect(prisma.$transaction((tx) => appendAudit(tx, actor, { action: "user.create", targetType: "user" }))).rejects.toThrow(/at least 32 characters/);
  });
});

describe("checkpoints of the head kept outside the database", () => {
  it("detects deleting the last entries against the last checkpoint", async () => {
    await checkpointer().checkpointNow();
    expect(checkpoints()).toMatchObject([{ seq: 5 }]);
    await asDatabaseOwner(prisma, "delete from audit_entry where seq > 3");
    // Without the checkpoint the shorter log is a valid chain: what the old code reported.
    expect(await verifyAuditChain(prisma)).toMatchObject({ ok: true, entries: 3 });
    expect(await verifyAuditChain(prisma, { checkpoints: checkpoints() })).toMatchObject({
      ok: false,
      entries: 3,
      firstBreak: { seq: 4, problem: "truncated" },
    });
  });

  it("detects a chain recomputed after the tail was deleted and new entries appended past the checkpoint", async () => {
    await checkpointer().checkpointNow();
    await asDatabaseOwner(prisma, "delete from audit_entry where seq > 3");
    await append(3, 4);
    expect(await verifyAuditChain(prisma, { checkpoints: checkpoints() })).toMatchObject({ ok: false, firstBreak: { seq: 5, problem: "checkpoint_mismatch" } });
  });

  it("detects a recomputed chain without the key, against the checkpoint", async () => {
    await checkpointer().checkpointNow();
    await rewriteChainFrom(prisma, 2, "nothing to see", "strip");
    expect(await verifyAuditChain(prisma, { key: null })).toMatchObject({ ok: true });
    expect(await verifyAuditChain(prisma, { key: null, checkpoints: checkpoints() })).toMatchObject({
      ok: false,
      firstBreak: { seq: 5, problem: "checkpoint_mismatch" },
    });
  });

  it("refuses a checkpoint edited without the key", async () => {
    await checkpointer().checkpointNow();
    const [cp] = checkpoints();
    const forged = { ...cp!, seq: 3 };
    expect(await verifyAuditChain(prisma, { checkpoints: [forged] })).toMatchObject({ ok: false, firstBreak: { seq: 3, problem: "checkpoint_invalid" } });
  });

  it("the checkpointer writes only when the head moved and never checkpoints a broken or truncated chain", async () => {
    const cp = checkpointer();
    await cp.checkpointNow();
    await cp.checkpointNow();
    expect(checkpoints()).toHaveLength(1);
    await append(2, 6);
    expect((await cp.checkpointNow()).lastCheckpoint).toMatchObject({ seq: 7 });
    expect(checkpoints().map((c) => c.seq)).toEqual([5, 7]);

    // A fresh process (reads the file) after the tail was deleted.
    await asDatabaseOwner(prisma, "delete from audit_entry where seq > 6");
    const after = await checkpointer().checkpointNow();
    expect(after.error).toMatch(/entry 7 .*truncated/);
    expect(checkpoints().map((c) => c.seq)).toEqual([5, 7]);

    // Entries appended again over the deleted ones: entry 7 exists but is not the checkpointed one.
    await append(2, 7);
    const rewritten = await cp.checkpointNow();
    expect(rewritten.error).toMatch(/chain broken at entry 7 \(checkpoint_mismatch\)/);
    expect(checkpoints().map((c) => c.seq)).toEqual([5, 7]);
  });
});

describe("npm run audit:verify", () => {
  function run(extraEnv: Record<string, string | undefined>, args: string[] = []): Promise<{ code: number; out: string }> {
    const env: NodeJS.ProcessEnv = { ...process.env, DATABASE_URL: db.url, SWITCHYARD_AUDIT_CHECKPOINT_DIR: dir, ...extraEnv };
    for (const k of Object.keys(env)) if (env[k] === undefined) delete env[k];
    return new Promise((resolve) => {
      execFile(path.join("node_modules", ".bin", "tsx"), ["scripts/audit-verify.ts", ...args], { env, cwd: process.cwd() }, (err, stdout, stderr) => {
        resolve({ code: err ? ((err as { code?: number }).code ?? 1) : 0, out: stdout + stderr });
      });
    });
  }

  it("prints the head checkpoint when intact and exits 1 naming the entry for each tampering", async () => {
    await checkpointer().checkpointNow();
    const intact = await run({ SWITCHYARD_AUDIT_KEY: KEY });
    expect(intact.code).toBe(0);
    expect(intact.out).toMatch(/audit log intact: 5 entries, head entry 5 [0-9a-f]{64}/);
    expect(intact.out).toContain("MACs: verified with the key from SWITCHYARD_AUDIT_KEY");
    expect(intact.out).toMatch(/checkpoints: 1 in .* hold \(latest: entry 5 of/);
    expect(intact.out).toMatch(/\{"seq":5,"hash":"[0-9a-f]{64}","mac":"[0-9a-f]{64}"/);

    await rewriteChainFrom(prisma, 3, "nothing to see");
    const recomputed = await run({ SWITCHYARD_AUDIT_KEY: KEY });
    expect(recomputed.code).toBe(1);
    expect(recomputed.out).toContain("audit log BROKEN at entry 3 (mac_mismatch)");
    const noKey = await run({ SWITCHYARD_AUDIT_KEY: undefined });
    expect(noKey.code).toBe(1);
    expect(noKey.out).toContain("audit log BROKEN at entry 5 (checkpoint_mismatch)");

    // The operator's own copy of an earlier checkpoint, passed explicitly.
    const kept = path.join(dir, "kept.jsonl");
    writeFileSync(kept, readFileSync(auditCheckpointFile(dir, db.url)));
    await asDatabaseOwner(prisma, "delete from audit_entry where seq > 2");
    const truncated = await run({ SWITCHYARD_AUDIT_KEY: undefined }, ["--checkpoints", kept]);
    expect(truncated.code).toBe(1);
    expect(truncated.out).toContain("audit log BROKEN at entry 3 (truncated): the log ends at entry 2 but the checkpoint of");
  }, 60_000);

  it("exits 1 when a checkpoint file named on the command line is missing or empty, even on an emptied log", async () => {
    await asDatabaseOwner(prisma, "delete from audit_entry");
    const missing = await run({ SWITCHYARD_AUDIT_KEY: KEY }, ["--checkpoints", path.join(dir, "no-such-file.jsonl")]);
    expect([missing.code, missing.out]).toEqual([1, expect.stringContaining("no-such-file.jsonl does not exist")]);
    expect(missing.out).not.toContain("intact");
    const emptyFile = path.join(dir, "empty.jsonl");
    writeFileSync(emptyFile, "\n");
    const empty = await run({ SWITCHYARD_AUDIT_KEY: KEY }, ["--checkpoints", emptyFile]);
    expect([empty.code, empty.out]).toEqual([1, expect.stringContaining("empty.jsonl holds no checkpoint")]);
  }, 60_000);
});
