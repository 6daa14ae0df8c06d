import pg from "pg";

/** Advisory-lock key of the controller leader ("SWYD" + 1): one per database, shared by every instance. */
export const CONTROLLER_LOCK_KEY = 0x5357_5944_0001n;

export type TLeaderOptions = {
  databaseUrl: string;
  /** How often a follower retries the lock and a leader checks its session; takeover happens within this. */
  retryMs?: number;
  log?: (line: string) => void;
  onElected?: () => void;
  onDemoted?: (reason: string) => void;
};

/**
 * Leader election with a session-level Postgres advisory lock held on a dedicated connection.
 * The lock lives exactly as long as that session: when the leader process dies or its
 * connection is cut, Postgres ends the session and frees the lock, and a follower's next
 * pg_try_advisory_lock (every retryMs) wins. The leader pings its session every retryMs so a
 * dead connection demotes it promptly, and it writes controller results through this same
 * session (withSession), which fences a deposed leader: its writes fail with the session.
 */
export function createLeaderElector(opts: TLeaderOptions) {
  const retryMs = opts.retryMs ?? 1_000;
  const log = opts.log ?? (() => {});
  let client: pg.Client | null = null;
  let leader = false;
  let since: number | null = null;
  let stopped = false;
  let timer: NodeJS.Timeout | null = null;
  let busy: Promise<void> = Promise.resolve();

  function drop(reason: string): void {
    const c = client;
    client = null;
    if (c) c.end().catch(() => {});
    if (leader) {
      leader = false;
      since = null;
      log(`controller leadership lost: ${reason}`);
      opts.onDemoted?.(reason);
    }
  }

  async function connect(): Promise<pg.Client> {
    const c = new pg.Client({
      connectionString: opts.databaseUrl,
      keepAlive: true,
      application_name: "switchyard-controller-lock",
      // An unreachable server must fail the attempt, not stall the election loop.
      connectionTimeoutMillis: 5_000,
    });
    c.on("error", (err) => {
      if (client === c) drop(`lock connection error: ${err.message}`);
    });
    c.on("end", () => {
      if (client === c) drop("lock connection ended");
    });
    await c.connect();
    return c;
  }

  async function attempt(): Promise<void> {
    try {
      if (!client) client = await connect();
      const c = client;
      if (leader) {
        await c.query("select 1");
        return;
      }
      const { rows } = await c.query<{ ok: boolean }>("select pg_try_advisory_lock($1::bigint) as ok", [CONTROLLER_LOCK_KEY.toString()]);
      if (rows[0]?.ok && client === c && !stopped) {
        leader = true;
        since = Date.now();
        log("controller leadership acquired");
        opts.onElected?.();
      }
    } catch (err) {
      drop((err as Error).message);
    }
  }

  function loop(): void {
    if (stopped) return;
    busy = attempt();
    void busy.finally(() => {
      if (!stopped) timer = setTimeout(loop, retryMs);
    });
  }

  return {
    start(): void {
      stopped = false;
      loop();
    },
    get isLeader(): boolean {
      return leader;
    },
    get leaderSince(): number | null {
      return since;
    },
    /**
     * Runs `fn` on the lock session while leader; null when not leader. A failure on the session
     * demotes this instance, since it can no longer prove it holds the lock.
     */
    async withSession<T>(fn: (c: pg.Client) => Promise<T>): Promise<T | null> {
      const c = client;
      if (!leader || !c) return null;
      try {
        return await fn(c);
      } catch (err) {
        if (c === client && !(err instanceof pg.DatabaseError)) drop(`controller write failed: ${(err as Error).message}`);
        throw err;
      }
    },
    /** Releases the lock (ending the session) so another instance takes over at once. */
    async stop(): Promise<void> {
      stopped = true;
      if (timer) clearTimeout(timer);
      await busy;
      const c = client;
      client = null;
      if (leader) {
        leader = false;
        since = null;
        opts.onDemoted?.("stopped");
      }
      if (c) await c.end().catch(() => {});
    },
  };
}

export type LeaderElector = ReturnType<typeof createLeaderElector>;
