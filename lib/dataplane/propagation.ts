import pg from "pg";
import type { TShares } from "../../router-core/index";
import { CONFIG_CHANNEL } from "../db/notify";
import { SHARES_CHANNEL } from "./controller/controller-store";
import type { RoutingState } from "./routing-state";

export type TPropagationOptions = {
  databaseUrl: string;
  /** Reloads policies, providers and overrides (DP-A's loadConfig). */
  reloadConfig: () => Promise<void>;
  /** Reloads the controller's current shares. */
  reloadShares: () => Promise<void>;
  /** Safety-net polling period for both, in case a notice was missed. */
  pollMs?: number;
  log?: (line: string) => void;
};

const MIN_BACKOFF_MS = 100;
const MAX_BACKOFF_MS = 5_000;

/** Runs `fn` at most once at a time; calls during a run schedule exactly one more run after it. */
function coalesce(fn: () => Promise<void>, onError: (err: unknown) => void) {
  let running: Promise<void> | null = null;
  let again: Promise<void> | null = null;
  const run = (): Promise<void> => {
    if (running) {
      again ??= running.then(() => {
        again = null;
        return run();
      });
      return again;
    }
    running = fn()
      .catch(onError)
      .finally(() => (running = null));
    return running;
  };
  return run;
}

/**
 * Config and share changes reach this instance through LISTEN/NOTIFY on a dedicated connection
 * (a pooled one could be handed to a query mid-notice, and LISTEN is per session), reconnecting
 * with capped exponential backoff; polling every pollMs is the safety net for notices sent while
 * the listener was disconnected. Every (re)connect reloads both, since notices are not queued
 * for absent listeners.
 */
export function createPropagation(opts: TPropagationOptions) {
  const log = opts.log ?? (() => {});
  const pollMs = opts.pollMs ?? 5_000;
  const reloadConfig = coalesce(opts.reloadConfig, (err) => log(`config reload failed: ${(err as Error).message}`));
  const reloadShares = coalesce(opts.reloadShares, (err) => log(`shares reload failed: ${(err as Error).message}`));
  let client: pg.Client | null = null;
  let stopped = true;
  let backoff = MIN_BACKOFF_MS;
  let reconnectTimer: NodeJS.Timeout | null = null;
  let pollTimer: NodeJS.Timeout | null = null;
  let listening = false;
  let lastNoticeAt: number | null = null;
  let notices = 0;

  function scheduleReconnect(): void {
    if (stopped || reconnectTimer) return;
    reconnectTimer = setTimeout(() => {
      reconnectTimer = null;
      void connect();
    }, backoff);
    backoff = Math.min(MAX_BACKOFF_MS, backoff * 2);
  }

  function lost(c: pg.Client, why: string): void {
    if (client !== c) return;
    client = null;
    listening = false;
    c.end().catch(() => {});
    log(`config listener disconnected (${why}); reconnecting`);
    scheduleReconnect();
  }

  async function connect(): Promise<void> {
    if (stopped) return;
    const c = new pg.Client({
      connectionString: opts.databaseUrl,
      keepAlive: true,
      application_name: "switchyard-listener",
      connectionTimeoutMillis: 5_000,
    });
    c.on("error", (err) => lost(c, err.message));
    c.on("end", () => lost(c, "connection ended"));
    c.on("notification", (msg) => {
      lastNoticeAt = Date.now();
      notices++;
      if (msg.channel === SHARES_CHANNEL) void reloadShares();
      else void reloadConfig();
    });
    client = c;
    try {
      await c.connect();
      await c.query(`listen ${pg.escapeIdentifier(CONFIG_CHANNEL)}`);
      await c.query(`listen ${pg.escapeIdentifier(SHARES_CHANNEL)}`);
      if (stopped) {
        await c.end();
        return;
      }
      listening = true;
      backoff = MIN_BACKOFF_MS;
      await Promise.all([reloadConfig(), reloadShares()]);
    } catch (err) {
      lost(c, (err as Error).message);
    }
  }

  return {
    start(): void {
      if (!stopped) return;
      stopped = false;
      void connect();
      pollTimer = setInterval(() => {
        void reloadConfig();
        void reloadShares();
      }, pollMs);
      pollTimer.unref();
    },
    async stop(): Promise<void> {
      stopped = true;
      if (reconnectTimer) clearTimeout(reconnectTimer);
      if (pollTimer) clearInterval(pollTimer);
      reconnectTimer = null;
      pollTimer = null;
      const c = client;
      client = null;
      listening = false;
      if (c) await c.end().catch(() => {});
    },
    reloadConfig,
    reloadShares,
    get listening(): boolean {
      return listening;
    },
    get lastNoticeAt(): number | null {
      return lastNoticeAt;
    },
    get notices(): number {
      return notices;
    },
  };
}

export type Propagation = ReturnType<typeof createPropagation>;

/**
 * Current shares from traffic_share into the routing state. Unchanged shares are not set again,
 * so the decide path keeps its prebuilt snapshots; an (operation, region) that disappeared from
 * the table goes back to "no shares" (all traffic to the first eligible provider). `writtenAt`
 * is the newest controller write seen, so every instance (not only the leader) can tell whether
 * the controller is alive.
 */
export function createShareLoader(pool: pg.Pool, state: RoutingState) {
  let previous = new Map<string, string>();
  let writtenAt: number | null = null;
  const load = async (): Promise<void> => {
    const { rows } = await pool.query<{ operation_key: string; region: string; provider_key: string; share: number; updated_at: Date }>(
      "select operation_key, region, provider_key, share, updated_at from traffic_share order by operation_key, region, provider_key",
    );
    const grouped = new Map<string, { operation: string; region: string; shares: TShares }>();
    for (const r of rows) {
      const k = `${r.operation_key}\u0000${r.region}`;
      let g = grouped.get(k);
      if (!g) {
        g = { operation: r.operation_key, region: r.region, shares: {} };
        grouped.set(k, g);
      }
      g.shares[r.provider_key] = r.share;
      const at = r.updated_at.getTime();
      if (writtenAt === null || at > writtenAt) writtenAt = at;
    }
    const next = new Map<string, string>();
    for (const [k, g] of grouped) {
      const json = JSON.stringify(g.shares);
      next.set(k, json);
      if (previous.get(k) !== json) state.setShares(g.operation, g.region, g.shares);
    }
    for (const k of previous.keys()) {
      if (next.has(k)) continue;
      const [operation, region] = k.split("\u0000") as [string, string];
      state.setShares(operation, region, null);
    }
    previous = next;
  };
  return {
    load,
    get writtenAt(): number | null {
      return writtenAt;
    },
  };
}
