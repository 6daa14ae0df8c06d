type TEnv = Readonly<Record<string, string | undefined>>;

/** Where decisions are logged and read: Postgres (the default), or ClickHouse with its retention tiers. */
export type TDecisionStoreSettings =
  | { kind: "postgres" }
  | {
      kind: "clickhouse";
      url: string;
      database: string;
      /** Every decision is kept whole this many days. */
      fullDays: number;
      /** After fullDays, routine decisions are kept only for this share (in basis points, 0-10000), every non-routine one. */
      routineSampleBasisPoints: number;
      /** Everything is deleted this many days after it was made. */
      keepDays: number;
      /** Decision batches inserted at once by one instance (default 4): the group commit's transactions in flight in this mode. */
      insertsInFlight?: number;
      /** Inserts sent gzipped: less network to a remote ClickHouse, more CPU in the instance (default off). */
      compressInserts?: boolean;
    };

/**
 * An insert into ClickHouse takes longer than a Postgres commit (a part per insert), so one in
 * flight at a time caps a closed loop at its connections over that time; a few at once let the
 * next batch go while the last one is written, and the server writes them in parallel.
 */
export const DEFAULT_INSERTS_IN_FLIGHT = 4;

function int(env: TEnv, name: string, fallback: number, min: number, max: number): number {
  const raw = env[name];
  if (raw === undefined || raw === "") return fallback;
  const n = Number(raw);
  if (!Number.isInteger(n) || n < min || n > max) throw new RangeError(`${name} must be an integer from ${min} to ${max}, got ${JSON.stringify(raw)}`);
  return n;
}

function flag(env: TEnv, name: string): boolean {
  const raw = env[name];
  if (raw === undefined || raw === "" || raw === "0" || raw === "false") return false;
  if (raw === "1" || raw === "true") return true;
  throw new RangeError(`${name} must be 1, true, 0 or false, got ${JSON.stringify(raw)}`);
}

/** The store from the environment; a bad value stops the start, naming the variable. */
export function decisionStoreSettings(env: TEnv): TDecisionStoreSettings {
  const kind = env.SWITCHYARD_DECISION_STORE || "postgres";
  if (kind === "postgres") return { kind };
  if (kind !== "clickhouse") throw new RangeError(`SWITCHYARD_DECISION_STORE must be "postgres" or "clickhouse", got ${JSON.stringify(kind)}`);
  const url = env.SWITCHYARD_CLICKHOUSE_URL;
  if (!url || !/^https?:\/\//.test(url)) throw new RangeError(`SWITCHYARD_CLICKHOUSE_URL must be an http(s) URL when SWITCHYARD_DECISION_STORE=clickhouse`);
  const database = env.SWITCHYARD_CLICKHOUSE_DATABASE || "default";
  if (!/^\w+$/.test(database)) throw new RangeError(`SWITCHYARD_CLICKHOUSE_DATABASE must be a plain identifier, got ${JSON.stringify(database)}`);
  const fullDays = int(env, "CLICKHOUSE_FULL_DAYS", 30, 1, 3650);
  const keepDays = int(env, "CLICKHOUSE_KEEP_DAYS", 365, 1, 36500);
  if (keepDays < fullDays) throw new RangeError(`CLICKHOUSE_KEEP_DAYS (${keepDays}) must be at least CLICKHOUSE_FULL_DAYS (${fullDays})`);
  return {
    kind,
    url,
    database,
    fullDays,
    keepDays,
    routineSampleBasisPoints: int(env, "CLICKHOUSE_ROUTINE_SAMPLE_BP", 100, 0, 10_000),
    insertsInFlight: int(env, "SWITCHYARD_CLICKHOUSE_INSERTS", DEFAULT_INSERTS_IN_FLIGHT, 1, 16),
    compressInserts: flag(env, "SWITCHYARD_CLICKHOUSE_COMPRESS"),
  };
}
