import { appendFileSync, mkdirSync, readFileSync } from "node:fs";
import path from "node:path";
import { auditCheckpointMac } from "./audit-key";

/**
 * Checkpoints of the audit log's head, kept outside the database: one JSON line per
 * checkpoint, appended to `<dir>/<host>_<port>_<database>.jsonl` (one file per database, so
 * throwaway databases never mix with the real one). A checkpoint pins the chain up to its seq:
 * a later chain that lacks that entry (the tail was deleted) or has another hash there (the
 * chain was rewritten and recomputed) fails `verifyAuditChain`. With an audit key the
 * checkpoint carries a MAC, so the file itself cannot be forged without the key.
 */
export type TAuditCheckpoint = { seq: number; hash: string; mac: string | null; at: string; database: string };

type TEnv = Record<string, string | undefined>;

export function auditCheckpointDir(env: TEnv = process.env, cwd = process.cwd()): string {
  return env.SWITCHYARD_AUDIT_CHECKPOINT_DIR ? path.resolve(cwd, env.SWITCHYARD_AUDIT_CHECKPOINT_DIR) : path.join(cwd, ".data", "audit-checkpoints");
}

/** host:port/database of a PostgreSQL URL: which chain a checkpoint belongs to (no credentials). */
export function auditDatabaseId(databaseUrl: string): string {
  const u = new URL(databaseUrl);
  return `${u.hostname}:${u.port || "5432"}/${decodeURIComponent(u.pathname.replace(/^\//, "")) || "postgres"}`;
}

export function auditCheckpointFile(dir: string, databaseUrl: string): string {
  return path.join(dir, `${auditDatabaseId(databaseUrl).replace(/[^A-Za-z0-9._-]/g, "_")}.jsonl`);
}

export function makeAuditCheckpoint(head: { seq: number; hash: string }, key: Buffer | null, databaseUrl: string, now = new Date()): TAuditCheckpoint {
  const at = now.toISOString();
  return {
    seq: head.seq,
    hash: head.hash,
    mac: key ? auditCheckpointMac(key, { seq: head.seq, hash: head.hash, at }) : null,
    at,
    database: auditDatabaseId(databaseUrl),
  };
}

function isCheckpoint(v: unknown): v is TAuditCheckpoint {
  const c = v as Partial<TAuditCheckpoint> | null;
  return (
    typeof c === "object" &&
    c !== null &&
    Number.isInteger(c.seq) &&
    (c.seq as number) > 0 &&
    typeof c.hash === "string" &&
    /^[0-9a-f]{64}$/.test(c.hash) &&
    (c.mac === null || (typeof c.mac === "string" && /^[0-9a-f]{64}$/.test(c.mac))) &&
    typeof c.at === "string" &&
    !Number.isNaN(Date.parse(c.at))
  );
}

/**
 * Every checkpoint in a file; a line that is not one throws, naming it. A file that does not
 * exist holds none, unless `required` (the operator named it): then a missing or empty file
 * throws, since verifying against nothing would pass an emptied log as intact.
 */
export function readAuditCheckpoints(file: string, opts: { required?: boolean } = {}): TAuditCheckpoint[] {
  let text: string;
  try {
    text = readFileSync(file, "utf8");
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== "ENOENT") throw err;
    if (opts.required) throw new Error(`checkpoint file ${file} does not exist`);
    return [];
  }
  const out: TAuditCheckpoint[] = [];
  text.split("\n").forEach((line, i) => {
    if (line.trim() === "") return;
    let parsed: unknown;
    try {
      parsed = JSON.parse(line);
    } catch {
      parsed = null;
    }
    if (!isCheckpoint(parsed)) throw new Error(`${file} line ${i + 1} is not an audit checkpoint: ${line.slice(0, 120)}`);
    out.push(parsed);
  });
  if (opts.required && out.length === 0) throw new Error(`checkpoint file ${file} holds no checkpoint`);
  return out;
}

/** Appends one line (O_APPEND, one write); the directory is created on first use. */
export function appendAuditCheckpoint(file: string, checkpoint: TAuditCheckpoint): void {
  mkdirSync(path.dirname(file), { recursive: true, mode: 0o700 });
  appendFileSync(file, `${JSON.stringify(checkpoint)}\n`, { mode: 0o600 });
}
