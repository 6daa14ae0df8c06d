import pg from "pg";

export type TListenConnectionOptions = {
  databaseUrl: string;
  channels: readonly string[];
  /** Shown in pg_stat_activity and in the log lines. */
  applicationName: string;
  /** Safety-net period: notices sent while disconnected are not queued for the absent listener. */
  pollMs: number;
  log: (line: string) => void;
  onNotice: (channel: string) => void;
  /** Listening again after a (re)connect; whatever changed meanwhile must be reloaded here. */
  onConnect: () => Promise<void>;
  onPoll: () => void;
};

const MIN_BACKOFF_MS = 100;
const MAX_BACKOFF_MS = 5_000;

/**
 * LISTEN on a dedicated connection (LISTEN is per session, and a pooled connection could be
 * handed to a query mid-notice), reconnecting with capped exponential backoff, plus a poll every
 * pollMs for what was missed while away.
 */
export function createListenConnection(opts: TListenConnectionOptions) {
  let client: pg.Client | null = null;
  let stopped = true;
  let listening = false;
  let backoff = MIN_BACKOFF_MS;
  let reconnectTimer: NodeJS.Timeout | null = null;
  let pollTimer: NodeJS.Timeout | null = null;

  function lost(c: pg.Client, why: string): void {
    if (client !== c) return;
    client = null;
    listening = false;
    c.end().catch(() => {});
    opts.log(`LISTEN connection ${opts.applicationName} lost (${why}); reconnecting`);
    if (stopped || reconnectTimer) return;
    reconnectTimer = setTimeout(() => {
      reconnectTimer = null;
      void connect();
    }, backoff);
    backoff = Math.min(MAX_BACKOFF_MS, backoff * 2);
  }

  async function connect(): Promise<void> {
    if (stopped) return;
    const c = new pg.Client({ connectionString: opts.databaseUrl, keepAlive: true, application_name: opts.applicationName, connectionTimeoutMillis: 5_000 });
    c.on("error", (err) => lost(c, err.message));
    c.on("end", () => lost(c, "connection ended"));
    c.on("notification", (msg) => opts.onNotice(msg.channel));
    client = c;
    try {
      await c.connect();
      for (const channel of opts.channels) await c.query(`listen ${pg.escapeIdentifier(channel)}`);
      if (stopped) {
        await c.end();
        return;
      }
      listening = true;
      backoff = MIN_BACKOFF_MS;
      await opts.onConnect();
    } catch (err) {
      lost(c, (err as Error).message);
    }
  }

  return {
    start(): void {
      if (!stopped) return;
      stopped = false;
      void connect();
      pollTimer = setInterval(opts.onPoll, opts.pollMs);
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
    get listening(): boolean {
      return listening;
    },
  };
}

/** Runs `fn` at most once at a time; calls during a run schedule exactly one more run after it. */
export function coalesce(fn: () => Promise<void>, onError: (err: unknown) => void): () => Promise<void> {
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
