import pg from "pg";
import type { TShares } from "../../router-core/index";
import { coalesce, createListenConnection, CONFIG_CHANNEL } from "../db";
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

/**
 * Config and share changes reach this instance through LISTEN/NOTIFY (lib/db/listen-connection.ts),
 * polling every pollMs as the safety net. Every (re)connect reloads both, since notices are not
 * queued for absent listeners.
 */
export function createPropagation(opts: TPropagationOptions) {
  const log = opts.log ?? (() => {});
  const pollMs = opts.pollMs ?? 5_000;
  const reloadConfig = coalesce(opts.reloadConfig, (err) => log(`config reload failed: ${(err as Error).message}`));
  const reloadShares = coalesce(opts.reloadShares, (err) => log(`shares reload failed: ${(err as Error).message}`));
  let lastNoticeAt: number | null = null;
  let notices = 0;
  const connection = createListenConnection({
    databaseUrl: opts.databaseUrl,
    channels: [CONFIG_CHANNEL, SHARES_CHANNEL],
    applicationName: "switchyard-listener",
    pollMs,
    log,
    onNotice: (channel) => {
      lastNoticeAt = Date.now();
      notices++;
      if (channel === SHARES_CHANNEL) void reloadShares();
      else void reloadConfig();
    },
    onConnect: async () => {
      await Promise.all([reloadConfig(), reloadShares()]);
    },
    onPoll: () => {
      void reloadConfig();
      void reloadShares();
    },
  });

  return {
    start: connection.start,
    stop: connection.stop,
    reloadConfig,
    reloadShares,
    get listening(): boolean {
      return connection.listening;
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
