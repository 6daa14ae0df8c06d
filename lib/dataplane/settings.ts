import os from "node:os";
import path from "node:path";

type TEnv = Readonly<Record<string, string | undefined>>;

export type TDataPlaneSettings = {
  durability: "sync" | "async";
  retentionDays: number;
  partitionDaysAhead: number;
  spoolDir: string;
  spoolMaxBytes: number;
  maxBuffered: number;
  /** Decision-log transactions in flight at once (one commits while the next batch fills). */
  logConcurrency: number;
  /** Decisions per decision-log transaction at most. */
  logMaxBatch: number;
  /** How long a decision arriving under steady load waits for company before its transaction starts (writer.ts lingerMs). */
  logLingerMs: number;
  idempotencyCacheBytes: number;
  apiKey: string | undefined;
  instanceId: string;
};

function int(env: TEnv, name: string, fallback: number, min: number): number {
  const raw = env[name];
  if (raw === undefined || raw === "") return fallback;
  const n = Number(raw);
  if (!Number.isInteger(n) || n < min) throw new RangeError(`${name} must be an integer >= ${min}, got ${JSON.stringify(raw)}`);
  return n;
}

/** Data-plane settings from the environment; a bad value fails the start naming the variable. */
export function dataPlaneSettings(env: TEnv, dir: string): TDataPlaneSettings {
  const durability = env.DECISION_DURABILITY ?? "sync";
  if (durability !== "sync" && durability !== "async") {
    throw new RangeError(`DECISION_DURABILITY must be "sync" or "async", got ${JSON.stringify(durability)}`);
  }
  return {
    durability,
    retentionDays: int(env, "DECISION_RETENTION_DAYS", 30, 1),
    partitionDaysAhead: int(env, "DECISION_PARTITION_DAYS_AHEAD", 3, 1),
    spoolDir: env.SPOOL_DIR ? path.resolve(env.SPOOL_DIR) : path.join(dir, ".data", "spool"),
    spoolMaxBytes: int(env, "SPOOL_MAX_BYTES", 1024 ** 3, 1024),
    maxBuffered: int(env, "DECISION_LOG_MAX_BUFFER", 50_000, 1),
    logConcurrency: int(env, "DECISION_LOG_CONCURRENCY", 1, 1),
    logMaxBatch: int(env, "DECISION_LOG_MAX_BATCH", 500, 1),
    logLingerMs: int(env, "DECISION_LOG_LINGER_MS", 2, 0),
    idempotencyCacheBytes: int(env, "IDEMPOTENCY_CACHE_BYTES", 64 * 1024 ** 2, 0),
    apiKey: env.SWITCHYARD_API_KEY || undefined,
    instanceId: env.SWITCHYARD_INSTANCE_ID || `${os.hostname()}:${process.pid}`,
  };
}
