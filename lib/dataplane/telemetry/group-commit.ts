/**
 * Group commit: submissions that arrive while a write is in flight are written together in the
 * next one, so under load many callers share one transaction and at low load a caller waits for
 * no timer. Every submission settles with the write that carried it.
 */
export function createGroupCommit<T>(write: (items: T[]) => Promise<void>, maxBatch: number) {
  type TWaiter = { items: T[]; resolve: () => void; reject: (err: unknown) => void };
  const queue: TWaiter[] = [];
  let queued = 0;
  let inflight: Promise<void> | null = null;

  function kick(): void {
    if (inflight || queue.length === 0) return;
    const batch: TWaiter[] = [];
    let size = 0;
    while (queue.length > 0 && (batch.length === 0 || size + queue[0]!.items.length <= maxBatch)) {
      const w = queue.shift()!;
      batch.push(w);
      size += w.items.length;
    }
    queued -= size;
    inflight = write(batch.flatMap((w) => w.items)).then(
      () => batch.forEach((w) => w.resolve()),
      (err: unknown) => batch.forEach((w) => w.reject(err)),
    );
    void inflight.finally(() => {
      inflight = null;
      kick();
    });
  }

  return {
    submit(items: T[]): Promise<void> {
      if (items.length === 0) return Promise.resolve();
      return new Promise<void>((resolve, reject) => {
        queue.push({ items, resolve, reject });
        queued += items.length;
        kick();
      });
    },
    /** Items waiting for a write (not counting the one in flight). */
    get depth(): number {
      return queued;
    },
    async drain(): Promise<void> {
      while (inflight) await inflight;
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
