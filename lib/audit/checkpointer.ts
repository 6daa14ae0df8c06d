import type { PrismaClient } from "../db";
import { resolveAuditKey, type TAuditKeySource } from "./audit-key";
import {
  appendAuditCheckpoint,
  auditCheckpointDir,
  auditCheckpointFile,
  makeAuditCheckpoint,
  readAuditCheckpoints,
  type TAuditCheckpoint,
} from "./checkpoints";
import { verifyAuditChain } from "./verify-audit-chain";

/**
 * The running server's side of the audit anchor: at start and every
 * SWITCHYARD_AUDIT_CHECKPOINT_MS (default 60 s) it verifies the entries appended since the
 * last checkpoint (hash links and MACs, from that checkpoint on: cheap) and, if they hold and
 * the head moved, appends a checkpoint of the head to the checkpoint file. A broken chain or a
 * head behind the last checkpoint is logged loudly, reported by health(), and not checkpointed.
 */
export type TAuditAnchorHealth = {
  /** Where the MAC key came from; "none": entries are not MACed (a warning in production). */
  key: TAuditKeySource;
  /** Retired keys the server still verifies older entries with (SWITCHYARD_AUDIT_RETIRED_KEYS). */
  retiredKeys: number;
  checkpointFile: string;
  intervalMs: number;
  lastCheckpoint: { seq: number; hash: string; at: string } | null;
  /** The last problem found (chain broken, checkpoint file unwritable); null when fine. */
  error: string | null;
};

export type TAuditCheckpointer = {
  /** Verify since the last checkpoint and checkpoint the head now (also run by the timer). */
  checkpointNow(): Promise<TAuditAnchorHealth>;
  health(): TAuditAnchorHealth;
  close(): void;
};

export type TAuditCheckpointerOptions = {
  prisma: Pick<PrismaClient, "auditEntry">;
  databaseUrl: string;
  log: (line: string) => void;
  /** Default SWITCHYARD_AUDIT_CHECKPOINT_MS or 60000; 0 disables the timer (checkpointNow still works). */
  intervalMs?: number;
  /** Default SWITCHYARD_AUDIT_CHECKPOINT_DIR or .data/audit-checkpoints. */
  dir?: string;
  env?: Record<string, string | undefined>;
};

export const DEFAULT_AUDIT_CHECKPOINT_MS = 60_000;

export function auditCheckpointMsFromEnv(env: Record<string, string | undefined>): number {
  const raw = env.SWITCHYARD_AUDIT_CHECKPOINT_MS;
  if (raw === undefined || raw === "") return DEFAULT_AUDIT_CHECKPOINT_MS;
  const ms = Number(raw);
  if (!Number.isInteger(ms) || ms < 0)
    throw new Error(`SWITCHYARD_AUDIT_CHECKPOINT_MS must be a whole number of milliseconds ≥ 0 (0: no periodic checkpoints), got ${raw}`);
  return ms;
}

export function createAuditCheckpointer(opts: TAuditCheckpointerOptions): TAuditCheckpointer {
  const env = opts.env ?? process.env;
  const intervalMs = opts.intervalMs ?? auditCheckpointMsFromEnv(env);
  const file = auditCheckpointFile(opts.dir ?? auditCheckpointDir(env), opts.databaseUrl);
  const keyInfo = resolveAuditKey(env);
  let last: TAuditCheckpoint | null = null;
  let lastRead = false;
  let error: string | null = null;
  let running: Promise<TAuditAnchorHealth> | null = null;
  let timer: NodeJS.Timeout | null = null;

  const health = (): TAuditAnchorHealth => ({
    key: keyInfo.source,
    retiredKeys: keyInfo.retired.length,
    checkpointFile: file,
    intervalMs,
    lastCheckpoint: last ? { seq: last.seq, hash: last.hash, at: last.at } : null,
    error,
  });

  const fail = (message: string) => {
    if (message !== error) opts.log(`AUDIT LOG: ${message}`);
    error = message;
  };

  const run = async (): Promise<TAuditAnchorHealth> => {
    try {
      if (!lastRead) {
        const all = readAuditCheckpoints(file);
        last = all.reduce<TAuditCheckpoint | null>((a, c) => (a && a.seq >= c.seq ? a : c), null);
        lastRead = true;
      }
      const result = await verifyAuditChain(opts.prisma, { key: keyInfo.key, retired: keyInfo.retired, from: last ?? undefined });
      if (!result.ok) {
        fail(
          `chain broken at entry ${result.firstBreak.seq} (${result.firstBreak.problem}): ${result.firstBreak.detail}; no checkpoint written; run npm run audit:verify`,
        );
        return health();
      }
      error = null;
      if (result.headSeq > 0 && (!last || result.headSeq > last.seq)) {
        const checkpoint = makeAuditCheckpoint({ seq: result.headSeq, hash: result.headHash }, keyInfo.key, opts.databaseUrl);
        appendAuditCheckpoint(file, checkpoint);
        last = checkpoint;
      }
    } catch (err) {
      fail(`checkpoint failed: ${(err as Error).message}`);
    }
    return health();
  };

  const checkpointNow = () => {
    running ??= run().finally(() => (running = null));
    return running;
  };

  if (intervalMs > 0) {
    timer = setInterval(() => void checkpointNow(), intervalMs);
    timer.unref();
  }
  return {
    checkpointNow,
    health,
    close: () => {
      if (timer) clearInterval(timer);
      timer = null;
    },
  };
}

let current: TAuditCheckpointer | null = null;

/**
 * For the server (lib/server/boot.ts): says at start where the audit key comes from (loudly
 * when there is none, or refuses to start with SWITCHYARD_AUDIT_REQUIRE_KEY=1), writes a first
 * checkpoint in the background and keeps checkpointing. One per process: a second start
 * stops the first. stopAuditCheckpoints() and auditAnchorHealth() reach the running one.
 */
export function startAuditCheckpoints(opts: TAuditCheckpointerOptions): TAuditCheckpointer {
  const env = opts.env ?? process.env;
  const keyInfo = resolveAuditKey(env); // throws on a short key or an unreadable key file
  if (keyInfo.source === "none") {
    if (env.SWITCHYARD_AUDIT_REQUIRE_KEY === "1")
      throw new Error("SWITCHYARD_AUDIT_REQUIRE_KEY=1 but no audit key is configured (SWITCHYARD_AUDIT_KEY or SWITCHYARD_AUDIT_KEY_FILE)");
    opts.log(
      "WARNING: no audit key (SWITCHYARD_AUDIT_KEY or SWITCHYARD_AUDIT_KEY_FILE): audit entries are written without a MAC, so anyone with write access to the database can rewrite the audit log and recompute its hashes; only the checkpoints kept outside the database would show it. See lib/audit/README.md",
    );
  } else {
    opts.log(`audit log: entries MACed with the key from ${keyInfo.source === "env" ? "SWITCHYARD_AUDIT_KEY" : keyInfo.detail}`);
  }
  current?.close();
  current = createAuditCheckpointer(opts);
  const started = current;
  void started.checkpointNow().then((h) => {
    if (h.lastCheckpoint && !h.error) opts.log(`audit log: checkpoint at entry ${h.lastCheckpoint.seq} in ${h.checkpointFile}`);
  });
  return started;
}

export function stopAuditCheckpoints(): void {
  current?.close();
  current = null;
}

/** For /health: null when this process runs no checkpointer. */
export function auditAnchorHealth(): TAuditAnchorHealth | null {
  return current?.health() ?? null;
}
