import type pg from "pg";
import type { TQuotaView } from "../../../router-core/index";

/**
 * A provider's call and token quotas (the catalogue's `requests` and `tokens` quotas) counted for
 * the whole cluster, so a quota of N calls per window admits N calls, not N per instance.
 * Decisions must not wait for Postgres, so each instance leases blocks of the window's allowance from
 * `provider_quota_window` (an atomic grant that never takes `used` past the limit), spends them
 * locally, and leases the next block when half of one is left. A provider with nothing left fails
 * router-core's quota gate until its window ends. Windows are fixed (a rolling quota is counted
 * per fixed window of its length). Without Postgres an instance spends limit ÷ the number of
 * instances that leased in the window, and leases normally once Postgres is back. Calls are spent
 * when routed; tokens when a call's usage comes back (execute mode), so a token quota can be
 * overrun by the calls already under way when it runs out, never by calls routed after.
 */
export type TQuotaUnit = "requests" | "tokens";
export type TProviderQuota = { unit: TQuotaUnit; windowSeconds: number; limit: number };

export type TClusterQuotaOptions = {
  pool: pg.Pool;
  instanceId: string;
  now?: () => number;
  log?: (line: string) => void;
  /** Publishes the views the quota gate reads (RoutingState.setQuotaViews). */
  publish: (views: Record<string, TQuotaView>) => void;
};

type TWindow = {
  provider: string;
  quota: TProviderQuota;
  start: number;
  granted: number;
  spent: number;
  /** The block size asked for: small enough that blocks left unspent at the window's end stay few. */
  block: number;
  /** The database granted nothing more: the window is exhausted for the cluster. */
  drained: boolean;
  leasing: boolean;
  /** Instances that leased in this window, as of the last lease; 1 until one succeeds. */
  holders: number;
  local: boolean;
};

const LEASE = `insert into provider_quota_window (provider_key, unit, window_seconds, window_start, quota_limit, used, holders)
  values ($1, $5, $2, $3, $4, 0, array[]::text[])
  on conflict (provider_key, unit, window_seconds, window_start) do nothing`;

const GRANT = `update provider_quota_window w set
    used = w.used + g.grant,
    quota_limit = $4,
    holders = case when $6 = any(w.holders) then w.holders else w.holders || $6::text end,
    updated_at = now()
  from (select least($5::bigint, greatest(0, $4 - used)) as grant from provider_quota_window
        where provider_key = $1 and unit = $7 and window_seconds = $2 and window_start = $3 for update) g
  where w.provider_key = $1 and w.unit = $7 and w.window_seconds = $2 and w.window_start = $3
  returning g.grant::float8 as grant, cardinality(w.holders) as holders`;

const keyOf = (provider: string, q: TProviderQuota) => `${provider}\u0000${q.unit}\u0000${q.windowSeconds}`;
/** The fixed window `t` falls in (epoch ms), as every instance and the console count it. */
export const quotaWindowStart = (windowSeconds: number, t: number) => Math.floor(t / (windowSeconds * 1000)) * windowSeconds * 1000;
const startOf = (q: TProviderQuota, t: number) => quotaWindowStart(q.windowSeconds, t);
const left = (w: TWindow) => w.granted - w.spent;

/** Small enough that the blocks the instances hold unspent when the window runs out stay few: an eighth of each one's share. */
function blockSize(limit: number, holders: number): number {
  return Math.max(1, Math.floor(limit / (8 * Math.max(1, holders))));
}

/** A configured quota with its window key, built once: decide spends on it per decision. */
type TKeyedQuota = TProviderQuota & { key: string };

/** The window `t` falls in, new (nothing granted yet) when the last one ended or the limit changed. */
function currentWindow(windows: Map<string, TWindow>, provider: string, q: TKeyedQuota, t: number): TWindow {
  const start = startOf(q, t);
  let w = windows.get(q.key);
  if (!w || w.start !== start || w.quota.limit !== q.limit) {
    const holders = w?.holders ?? 1;
    w = { provider, quota: q, start, granted: 0, spent: 0, block: blockSize(q.limit, holders), drained: false, leasing: false, holders, local: false };
    windows.set(q.key, w);
  }
  return w;
}

export function createClusterQuota(opts: TClusterQuotaOptions) {
  const now = opts.now ?? Date.now;
  const log = opts.log ?? (() => {});
  let quotas = new Map<string, TKeyedQuota[]>();
  const windows = new Map<string, TWindow>();
  let shared = true;
  let leases = 0;
  let timer: NodeJS.Timeout | null = null;

  const windowFor = (provider: string, q: TKeyedQuota, t: number) => currentWindow(windows, provider, q, t);

  /** Every provider with a quota: exhausted (0 left here and no more to lease) until its window ends. */
  function publish(): void {
    const t = now();
    const views: Record<string, TQuotaView> = {};
    let soonest = Infinity;
    for (const [provider, qs] of quotas) {
      for (const q of qs) {
        const w = windowFor(provider, q, t);
        const end = w.start + q.windowSeconds * 1000;
        soonest = Math.min(soonest, end);
        if (left(w) <= 0) {
          views[provider] = {
            remainingMinute: 0,
            remainingDay: null,
            resetAt: w.drained ? end : null,
            window: `${q.limit} ${q.unit} per ${q.windowSeconds} s`,
          };
          break;
        }
      }
    }
    opts.publish(views);
    if (timer) clearTimeout(timer);
    timer = soonest === Infinity ? null : setTimeout(roll, Math.max(0, soonest - t) + 5);
    timer?.unref();
  }

  /** A window ended: lease the new ones at once instead of on the first decision. */
  function roll(): void {
    timer = null;
    const t = now();
    for (const [provider, qs] of quotas) for (const q of qs) void lease(windowFor(provider, q, t));
    publish();
  }

  async function lease(w: TWindow): Promise<void> {
    if (w.leasing || w.drained) return;
    w.leasing = true;
    // A block, plus what was spent beyond the grant (tokens come back after the call): the table counts all of it.
    const ask = w.block + Math.max(0, w.spent - w.granted);
    try {
      const args = [w.provider, w.quota.windowSeconds, new Date(w.start), w.quota.limit];
      await opts.pool.query(LEASE, [...args, w.quota.unit]);
      const { rows } = await opts.pool.query<{ grant: number; holders: number }>(GRANT, [...args, ask, opts.instanceId, w.quota.unit]);
      leases++;
      const got = rows[0]?.grant ?? 0;
      if (!shared) log("cluster quota: Postgres is back; leasing quotas from provider_quota_window again");
      shared = true;
      if (w.local) {
        // Leave the local split: what was spent meanwhile counts against what is granted now.
        w.local = false;
        w.granted = w.spent;
      }
      w.granted += got;
      w.holders = Math.max(1, rows[0]?.holders ?? 1);
      w.block = blockSize(w.quota.limit, w.holders);
      if (got < ask) w.drained = true;
    } catch (err) {
      if (shared) log(`cluster quota: Postgres unreachable (${(err as Error).message}); each instance spends limit / instances`);
      shared = false;
      if (!w.local) {
        w.local = true;
        w.granted = Math.max(w.granted, Math.floor(w.quota.limit / w.holders));
      }
    } finally {
      w.leasing = false;
    }
    publish();
  }

  return {
    /** The catalogue's quotas per provider, `requests` and `tokens`; windows of providers no longer listed are dropped. */
    configure(next: Map<string, TProviderQuota[]>): void {
      quotas = new Map([...next].map(([provider, qs]) => [provider, qs.map((q) => ({ ...q, key: keyOf(provider, q) }))]));
      for (const key of [...windows.keys()]) if (!next.has(key.split("\u0000")[0]!)) windows.delete(key);
      const t = now();
      for (const [provider, qs] of quotas) for (const q of qs) void lease(windowFor(provider, q, t));
      publish();
    },
    /** A call to `provider` (made at `at`, if reported later): one from each of its `requests` windows. Synchronous; leases in the background. */
    consume(provider: string, at?: number, calls = 1): void {
      const qs = quotas.get(provider);
      if (qs !== undefined && calls > 0 && spendIn(windows, provider, qs, "requests", calls, at, now(), lease)) publish();
    },
    /** A call's tokens once its usage is known (execute mode): from each of the provider's `tokens` windows. */
    spendTokens(provider: string, tokens: number, at?: number): void {
      const qs = quotas.get(provider);
      if (qs !== undefined && tokens > 0 && spendIn(windows, provider, qs, "tokens", tokens, at, now(), lease)) publish();
    },
    /** Each quota's limit and this instance's spend in the window current now (0 before its first spend); reads only. */
    usage: () => quotaUsage(quotas, windows, now()),
    status() {
      return { shared, leases, windows: [...windows.values()].map(windowStatus) };
    },
    close(): void {
      if (timer) clearTimeout(timer);
      timer = null;
    },
  };
}

/** Windows that ended a day ago or more: nothing reads them again (the data plane's hourly maintenance). */
export async function pruneEndedQuotaWindows(pool: pg.Pool): Promise<number> {
  const r = await pool.query("delete from provider_quota_window where window_start + make_interval(secs => window_seconds) < now() - interval '1 day'");
  return r.rowCount ?? 0;
}

/** Spends `amount` in the windows of `unit` that `at` (default: now, `t`) falls in; true when one of them ran out. Per decision: no allocation. */
function spendIn(
  windows: Map<string, TWindow>,
  provider: string,
  qs: readonly TKeyedQuota[],
  unit: TQuotaUnit,
  amount: number,
  at: number | undefined,
  t: number,
  lease: (w: TWindow) => Promise<void>,
): boolean {
  let empty = false;
  for (let i = 0; i < qs.length; i++) {
    const q = qs[i]!;
    if (q.unit !== unit) continue;
    const w = currentWindow(windows, provider, q, t);
    if (at !== undefined && startOf(q, at) !== w.start) continue;
    w.spent += amount;
    if (left(w) <= w.block / 2) void lease(w);
    if (left(w) <= 0) empty = true;
  }
  return empty;
}

export type TQuotaUsage = { provider: string; unit: TQuotaUnit; windowSeconds: number; limit: number; spent: number };

/** Without creating windows: a window created here would publish the quota as exhausted until its first lease. */
function quotaUsage(quotas: ReadonlyMap<string, readonly TKeyedQuota[]>, windows: ReadonlyMap<string, TWindow>, t: number): TQuotaUsage[] {
  const out: TQuotaUsage[] = [];
  for (const [provider, qs] of quotas) {
    for (const q of qs) {
      const w = windows.get(q.key);
      out.push({ provider, unit: q.unit, windowSeconds: q.windowSeconds, limit: q.limit, spent: w !== undefined && w.start === startOf(q, t) ? w.spent : 0 });
    }
  }
  return out;
}

function windowStatus(w: TWindow) {
  return { provider: w.provider, unit: w.quota.unit, windowSeconds: w.quota.windowSeconds, spent: w.spent, granted: w.granted, holders: w.holders };
}

export type ClusterQuota = ReturnType<typeof createClusterQuota>;
