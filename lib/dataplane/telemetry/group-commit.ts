/**
 * Group commit: submissions that arrive while a write is in flight are written together in the
 * next one, so under load many callers share one transaction and at low load a caller waits for
 * no timer. Every submission settles with the write that carried it.
 *
 * A submission nobody waits on (`lazyMs`) may wait up to that long for company: the write starts
 * when an eager submission arrives, when maxBatch items are queued, or when the time is up, so
 * background writes share transactions instead of each paying for one.
 */
export function createGroupCommit<T>(write: (items: T[]) => Promise<void>, maxBatch: number) {
  /** lazyMs: 0 for a caller waiting on the write, else how long it may wait for company. */
  type TWaiter = { items: T[]; lazyMs: number; resolve: () => void; reject: (err: unknown) => void };
  const queue: TWaiter[] = [];
  let queued = 0;
  let inflight: Promise<void> | null = null;
  /** Eager submissions queued; while there are none, the queue may wait for `lazyTimer`. */
  let eager = 0;
  let lazyTimer: NodeJS.Timeout | null = null;
  /** The longest wait asked for by a lazy submission still queued (they share one timer). */
  let lazyWait = 0;

  /** Writes now if anyone waits (or the batch is full), else once the lazy wait is over. */
  function schedule(): void {
    if (inflight || queue.length === 0) return;
    if (eager > 0 || queued >= maxBatch) {
      kick();
      return;
    }
    lazyTimer ??= setTimeout(() => {
      lazyTimer = null;
      kick();
    }, lazyWait);
  }

  function kick(): void {
    if (inflight || queue.length === 0) return;
    if (lazyTimer) {
      clearTimeout(lazyTimer);
      lazyTimer = null;
    }
    const batch: TWaiter[] = [];
    let size = 0;
    while (queue.length > 0 && (batch.length === 0 || size + queue[0]!.items.length <= maxBatch)) {
      const w = queue.shift()!;
      batch.push(w);
      size += w.items.length;
    }
    queued -= size;
    eager = 0;
    lazyWait = 0;
    for (const w of queue) {
      if (w.lazyMs === 0) eager++;
      else lazyWait = Math.max(lazyWait, w.lazyMs);
    }
    inflight = write(batch.flatMap((w) => w.items)).then(
      () => batch.forEach((w) => w.resolve()),
      (err: unknown) => batch.forEach((w) => w.reject(err)),
    );
    void inflight.finally(() => {
      inflight = null;
      schedule();
    });
  }

  return {
    submit(items: T[], opts: { lazyMs?: number } = {}): Promise<void> {
      if (items.length === 0) return Promise.resolve();
      return new Promise<void>((resolve, reject) => {
        const lazyMs = Math.max(0, opts.lazyMs ?? 0);
        queue.push({ items, lazyMs, resolve, reject });
        queued += items.length;
        if (lazyMs === 0) eager++;
        else lazyWait = Math.max(lazyWait, lazyMs);
        schedule();
      });
    },
    /** Items waiting for a write (not counting the one in flight). */
    get depth(): number {
      return queued;
    },
    /** Writes everything queued, lazy submissions included, and waits for it. */
    async drain(): Promise<void> {
      while (inflight || queue.length > 0) {
        if (!inflight) kick();
        await inflight;
      }
    },
  };
}

/**
 * The read-side twin of group commit: lookups requested while one is in flight are answered by
 * the next single query for all their keys, so concurrent outcome requests share round trips.
 */
export function createGroupLookup<V>(lookup: (keys: string[]) => Promise<Map<string, V>>) {
  const group = createGroupCommit<{ keys: readonly string[]; found: Map<string, V> }>(async (requests) => {
    const all = await lookup([...new Set(requests.flatMap((r) => r.keys))]);
    for (const r of requests) {
      for (const k of r.keys) {
        const v = all.get(k);
        if (v !== undefined) r.found.set(k, v);
      }
    }
  }, 10_000);
  return async (keys: readonly string[]): Promise<Map<string, V>> => {
    const found = new Map<string, V>();
    await group.submit([{ keys, found }]);
    return found;
  };
}
