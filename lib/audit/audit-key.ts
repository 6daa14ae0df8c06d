import { createHmac, randomBytes } from "node:crypto";
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import path from "node:path";

/**
 * The audit key: the secret the database does not hold. Each entry's hash is MACed with it
 * (HMAC-SHA256), so whoever can write to the database but does not have the key cannot
 * rewrite an entry and recompute the chain without the MACs giving it away.
 *
 * Resolved from the environment on every call (cached by the settings it came from), because
 * Next bundles its own copy of this module and only the environment is shared:
 *   1. SWITCHYARD_AUDIT_KEY: the key itself, 32+ characters (`openssl rand -hex 32`);
 *   2. SWITCHYARD_AUDIT_KEY_FILE: a file holding it (trailing whitespace ignored);
 *   3. demo mode (SWITCHYARD_DEMO_MODE=1): `.data/audit-key` under the working directory,
 *      generated on first use (mode 0600);
 *   4. otherwise none: entries are written without a MAC (start-up and /health say so).
 *
 * Rotation: the keys an audit log was MACed with before, oldest first, in
 * SWITCHYARD_AUDIT_RETIRED_KEYS (comma-separated) or SWITCHYARD_AUDIT_RETIRED_KEYS_FILE (one per
 * line). They only verify: new entries are MACed with the current key, and verify-audit-chain.ts
 * refuses an entry MACed with a retired key after a newer key's first entry (beyond a grace
 * window for instances still restarting), so a leaked retired key cannot extend the log.
 */
export type TAuditKeySource = "env" | "file" | "demo-file" | "none";
export type TAuditKey = { key: Buffer | null; source: TAuditKeySource; detail: string; retired: Buffer[] };

export const MIN_AUDIT_KEY_LENGTH = 32;

type TEnv = Record<string, string | undefined>;

let cached: { id: string; value: TAuditKey } | null = null;

export function demoAuditKeyPath(cwd = process.cwd()): string {
  return path.join(cwd, ".data", "audit-key");
}

function checkLength(text: string, where: string): Buffer {
  if (text.length < MIN_AUDIT_KEY_LENGTH)
    throw new Error(`${where}: the audit key must be at least ${MIN_AUDIT_KEY_LENGTH} characters (e.g. openssl rand -hex 32)`);
  return Buffer.from(text, "utf8");
}

function readKeyFile(file: string, where: string): Buffer {
  let text: string;
  try {
    text = readFileSync(file, "utf8");
  } catch (err) {
    throw new Error(`${where}: cannot read the audit key file ${file}: ${(err as Error).message}`);
  }
  return checkLength(text.trimEnd(), where);
}

/** Creates the demo key once; a concurrent creator's key wins and is read back. */
function demoKey(file: string): Buffer {
  try {
    return readKeyFile(file, "demo audit key");
  } catch (err) {
    if ((err as Error).message.includes("ENOENT") === false) throw err;
  }
  mkdirSync(path.dirname(file), { recursive: true });
  try {
    writeFileSync(file, `${randomBytes(32).toString("hex")}\n`, { flag: "wx", mode: 0o600 });
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== "EEXIST") throw err;
  }
  return readKeyFile(file, "demo audit key");
}

/** The retired keys, oldest first: each one checked like the current key. */
function retiredKeys(env: TEnv): Buffer[] {
  const inline = env.SWITCHYARD_AUDIT_RETIRED_KEYS;
  const file = env.SWITCHYARD_AUDIT_RETIRED_KEYS_FILE;
  let items: string[] = [];
  let where = "SWITCHYARD_AUDIT_RETIRED_KEYS";
  if (inline) items = inline.split(",");
  else if (file) {
    where = "SWITCHYARD_AUDIT_RETIRED_KEYS_FILE";
    try {
      items = readFileSync(file, "utf8").split("\n");
    } catch (err) {
      throw new Error(`${where}: cannot read ${file}: ${(err as Error).message}`);
    }
  }
  return items
    .map((k) => k.trim())
    .filter((k) => k !== "")
    .map((k, i) => checkLength(k, `${where} (key ${i + 1})`));
}

export function resolveAuditKey(env: TEnv = process.env, cwd = process.cwd()): TAuditKey {
  const inline = env.SWITCHYARD_AUDIT_KEY;
  const file = env.SWITCHYARD_AUDIT_KEY_FILE;
  const demo = env.SWITCHYARD_DEMO_MODE === "1";
  const retiredIn = `${env.SWITCHYARD_AUDIT_RETIRED_KEYS ?? ""}\u0000${env.SWITCHYARD_AUDIT_RETIRED_KEYS_FILE ?? ""}`;
  const id = `${inline ?? ""}\u0000${file ?? ""}\u0000${demo ? cwd : ""}\u0000${retiredIn}`;
  if (cached?.id === id) return cached.value;
  const retired = retiredKeys(env);
  let value: TAuditKey;
  if (inline) value = { key: checkLength(inline, "SWITCHYARD_AUDIT_KEY"), source: "env", detail: "SWITCHYARD_AUDIT_KEY", retired };
  else if (file) value = { key: readKeyFile(file, "SWITCHYARD_AUDIT_KEY_FILE"), source: "file", detail: file, retired };
  else if (demo) value = { key: demoKey(demoAuditKeyPath(cwd)), source: "demo-file", detail: demoAuditKeyPath(cwd), retired };
  else value = { key: null, source: "none", detail: "no SWITCHYARD_AUDIT_KEY or SWITCHYARD_AUDIT_KEY_FILE", retired };
  if (value.key === null && retired.length > 0)
    throw new Error("SWITCHYARD_AUDIT_RETIRED_KEYS is set but no current audit key (SWITCHYARD_AUDIT_KEY or SWITCHYARD_AUDIT_KEY_FILE)");
  cached = { id, value };
  return value;
}

/** A key's public fingerprint for messages and health (an HMAC of a constant: it reveals nothing of the key). */
export function auditKeyId(key: Buffer): string {
  return createHmac("sha256", key).update("switchyard-audit-key-id").digest("hex").slice(0, 12);
}

/** MAC of one entry: binds its hash (which covers its seq, contents and prev_hash). */
export function auditEntryMac(key: Buffer, hash: string): string {
  return createHmac("sha256", key).update(`switchyard-audit-entry:${hash}`).digest("hex");
}

/** MAC of a checkpoint of the head, so a checkpoint file cannot be forged without the key. */
export function auditCheckpointMac(key: Buffer, c: { seq: number; hash: string; at: string }): string {
  return createHmac("sha256", key).update(`switchyard-audit-checkpoint:${c.seq}:${c.hash}:${c.at}`).digest("hex");
}
