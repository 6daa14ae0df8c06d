import pg from "pg";

export type TBreakerListenerOptions = {
  databaseUrl: string;
  channel: string;
  pollMs: number;
  log: (line: string) => void;
  onNotice: () => Promise<void>;
  onPoll: () => Promise<void>;
  onConnect: () => Promise<void>;
};

const MIN_BACKOFF_MS = 100;
const MAX_BACKOFF_MS = 5_000;

/** Runs `fn` at most once at a time; calls during a run schedule exactly one more run after it. */
function coalesce(fn: () => Promise<void>): () => Promise<void> {
  let running: Promise<void> | null = null;
  let again = false;
  const run = async (): Promise<void> => {
    if (running) {
      again = true;
      return running;
    }
    running = (async () => {
      do {
        again = false;
        await fn().catch(() => {});
      } while (again);
    })().finally(() => (running = null));
    return running;
  };
  return run;
}

/**
 * LISTEN on one channel over a dedicated connection (LISTEN is per session, and a pooled one
 * could be handed to a query mid-notice), reconnecting with capped exponential backoff, plus a
 * poll every pollMs for notices sent while it was away. Notices and polls share one coalesced
 * runner so a burst of notices costs one pull at a time.
 */
export function createBreakerListener(opts: TBreakerListenerOptions) {
  let client: pg.Client | null = null;
  let stopped = true;
  let listening = false;
  let backoff = MIN_BACKOFF_MS;
  let reconnectTimer: NodeJS.Timeout | null = null;
  let pollTimer: NodeJS.Timeout | null = null;
  const onNotice = coalesce(opts.onNotice);
  const onPoll = coalesce(opts.onPoll);

  function lost(c: pg.Client, why: string): void {
    if (client !== c) return;
    client = null;
    listening = false;
    c.end().catch(() => {});
    opts.log(`breaker listener disconnected (${why}); reconnecting`);
    if (stopped || reconnectTimer) return;
    reconnectTimer = setTimeout(() => {
      reconnectTimer = null;
      void connect();
    }, backoff);
    backoff = Math.min(MAX_BACKOFF_MS, backoff * 2);
  }

  async function connect(): Promise<void> {
    if (stopped) return;
    const c = new pg.Client({ connectionString: opts.databaseUrl, keepAlive: true, application_name: "switchyard-breakers", connectionTimeoutMillis: 5_000 });
    c.on("error", (err) => lost(c, err.message));
    c.on("end", () => lost(c, "connection ended"));
    c.on("notification", () => void onNotice());
    client = c;
    try {
      await c.connect();
      await c.query(`listen ${pg.escapeIdentifier(opts.channel)}`);
      if (stopped) {
        await c.end();
        return;
      }
      listening = true;
      backoff = MIN_BACKOFF_MS;
      await opts.onConnect().catch(() => {});
    } catch (err) {
      lost(c, (err as Error).message);
    }
  }

  return {
    start(): void {
      if (!stopped) return;
      stopped = false;
      void connect();
      pollTimer = setInterval(() => void onPoll(), opts.pollMs);
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
