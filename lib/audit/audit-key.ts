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
 */
export type TAuditKeySource = "env" | "file" | "demo-file" | "none";
export type TAuditKey = { key: Buffer | null; source: TAuditKeySource; detail: string };

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

export function resolveAuditKey(env: TEnv = process.env, cwd = process.cwd()): TAuditKey {
  const inline = env.SWITCHYARD_AUDIT_KEY;
  const file = env.SWITCHYARD_AUDIT_KEY_FILE;
  const demo = env.SWITCHYARD_DEMO_MODE === "1";
  const id = `${inline ?? ""}\u0000${file ?? ""}\u0000${demo ? cwd : ""}`;
  if (cached?.id === id) return cached.value;
  let value: TAuditKey;
  if (inline) value = { key: checkLength(inline, "SWITCHYARD_AUDIT_KEY"), source: "env", detail: "SWITCHYARD_AUDIT_KEY" };
  else if (file) value = { key: readKeyFile(file, "SWITCHYARD_AUDIT_KEY_FILE"), source: "file", detail: file };
  else if (demo) value = { key: demoKey(demoAuditKeyPath(cwd)), source: "demo-file", detail: demoAuditKeyPath(cwd) };
  else value = { key: null, source: "none", detail: "no SWITCHYARD_AUDIT_KEY or SWITCHYARD_AUDIT_KEY_FILE" };
  cached = { id, value };
  return value;
}

/** MAC of one entry: binds its hash (which covers its seq, contents and prev_hash). */
export function auditEntryMac(key: Buffer, hash: string): string {
  return createHmac("sha256", key).update(`switchyard-audit-entry:${hash}`).digest("hex");
}

/** MAC of a checkpoint of the head, so a checkpoint file cannot be forged without the key. */
export function auditCheckpointMac(key: Buffer, c: { seq: number; hash: string; at: string }): string {
  return createHmac("sha256", key).update(`switchyard-audit-checkpoint:${c.seq}:${c.hash}:${c.at}`).digest("hex");
}
