import type pg from "pg";
import type { QuotaFeed } from "./quota-feed";

/**
 * Shares the throttles execute mode learns from providers (a 429, or remaining requests 0)
 * between instances through `provider_throttle`, so once one instance is told to wait, every
 * instance skips the provider until that reset instead of spending its own 429 to learn it.
 * Every `intervalMs` (default 1 s) an instance writes the throttles it learned since the last
 * sync (the later reset wins) and adopts the others' that have not ended. Another instance
 * learns of a throttle at most one interval (plus a write) late. While Postgres is unreachable
 * the unwritten throttles are kept and written later; each instance still acts on its own.
 */
export type TThrottleSyncOptions = {
  pool: pg.Pool;
  feed: QuotaFeed;
  instanceId: string;
  intervalMs?: number;
  now?: () => number;
  log?: (line: string) => void;
};

const WRITE = `insert into provider_throttle (provider_key, throttled_until_ms, instance_id, updated_at)
  select t.provider, t.until, $3, now() from unnest($1::text[], $2::float8[]) as t(provider, until)
  on conflict (provider_key) do update set
    throttled_until_ms = greatest(provider_throttle.throttled_until_ms, excluded.throttled_until_ms),
    instance_id = case when excluded.throttled_until_ms > provider_throttle.throttled_until_ms then excluded.instance_id else provider_throttle.instance_id end,
    updated_at = now()`;

const READ = "select provider_key, throttled_until_ms from provider_throttle where throttled_until_ms > $1";

export function createThrottleSync(opts: TThrottleSyncOptions) {
  const now = opts.now ?? Date.now;
  const log = opts.log ?? (() => {});
  let running: Promise<void> | null = null;
  let failing = false;
  let lastSyncAt: number | null = null;

  async function run(): Promise<void> {
    const mine = opts.feed.takeLearned();
    try {
      if (mine.length > 0) {
        await opts.pool.query(WRITE, [mine.map((m) => m.provider), mine.map((m) => m.until), opts.instanceId]);
      }
    } catch (err) {
      opts.feed.restoreLearned(mine);
      throw err;
    }
    const { rows } = await opts.pool.query<{ provider_key: string; throttled_until_ms: number }>(READ, [now()]);
    for (const r of rows) opts.feed.adopt(r.provider_key, r.throttled_until_ms);
    lastSyncAt = now();
  }

  function sync(): Promise<void> {
    running ??= run()
      .then(() => {
        if (failing) log("gateway: throttle sync works again");
        failing = false;
      })
      .catch((err: unknown) => {
        if (!failing) log(`gateway: throttle sync failed, each instance acts on the throttles it saw itself: ${(err as Error).message}`);
        failing = true;
      })
      .finally(() => {
        running = null;
      });
    return running;
  }

  const timer = setInterval(() => void sync(), opts.intervalMs ?? 1_000);
  timer.unref();

  return {
    /** One sync now (tests, shutdown); joins one already running. */
    sync,
    /** For /health: false while Postgres is unreachable (throttles are this instance's own). */
    status: () => ({ shared: !failing && lastSyncAt !== null, lastSyncAt }),
    async close(): Promise<void> {
      clearInterval(timer);
      await running;
      await sync();
    },
  };
}

export type ThrottleSync = ReturnType<typeof createThrottleSync>;
