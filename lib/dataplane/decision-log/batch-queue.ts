export type TBatchQueueOptions<T> = {
  /** Items per batch at most. */
  maxBatch: number;
  /** Batches in flight at once. */
  concurrency: number;
  /** After requeue(): how long until the queue tries again by itself. */
  retryMs: number;
  /**
   * Writes one batch. `handOff`: the batch is durable; the next one may start before this one's
   * callers are answered. The batch's place is freed when the promise settles at the latest.
   */
  write: (batch: T[], handOff: () => void) => Promise<void>;
};

/**
 * The group-commit queue: items wait while a batch is in flight and leave together as the next
 * batch, so one transaction's fixed cost is shared by everything that arrived meanwhile.
 */
export function createBatchQueue<T>(opts: TBatchQueueOptions<T>) {
  const { maxBatch, concurrency } = opts;
  let queue: T[] = [];
  // Whether the queue is to be written now. Deferred items alone do not make it so; an item that
  // is not deferred, a demand() or their timer does, and any batch takes them along.
  let ready = false;
  let deferTimer: NodeJS.Timeout | null = null;
  let retryTimer: NodeJS.Timeout | null = null;
  let scheduled = false;
  let closed = false;
  let inFlight = 0;
  let inFlightItems = 0;
  const idle = new Set<() => void>();

  function schedule(): void {
    if (scheduled || closed) return;
    scheduled = true;
    // setImmediate lets every request parsed in this turn of the event loop join the batch.
    setImmediate(() => {
      scheduled = false;
      pump();
    });
  }

  function takeBatch(): T[] {
    const batch = queue.length <= maxBatch ? queue : queue.slice(0, maxBatch);
    queue = queue.length <= maxBatch ? [] : queue.slice(maxBatch);
    // The rest of an oversized queue goes next, deferred or not.
    ready = queue.length > 0;
    if (!ready && deferTimer) {
      clearTimeout(deferTimer);
      deferTimer = null;
    }
    return batch;
  }

  function pump(): void {
    while (queue.length > 0 && inFlight < concurrency && ready) {
      const batch = takeBatch();
      inFlight++;
      inFlightItems += batch.length;
      let done = false;
      const finish = () => {
        if (done) return;
        done = true;
        inFlight--;
        inFlightItems -= batch.length;
      };
      // A written batch hands its place on to the next one before its callers are answered.
      const handOff = () => {
        finish();
        pump();
      };
      void opts.write(batch, handOff).finally(() => {
        finish();
        if (queue.length > 0) pump();
        else if (inFlight === 0) for (const fn of idle) fn();
      });
    }
  }

  return {
    /** Items waiting for a batch. */
    get queued(): number {
      return queue.length;
    },
    /** Items in batches being written. */
    get inFlight(): number {
      return inFlightItems;
    },

    /** Queues an item: written in the next batch, or (deferMs) with the next batch something else starts, or after deferMs at the latest. */
    add(item: T, deferMs?: number): void {
      if (deferMs === undefined) {
        ready = true;
        schedule();
      } else {
        deferTimer ??= setTimeout(() => {
          deferTimer = null;
          ready = true;
          pump();
        }, deferMs);
      }
      queue.push(item);
    },

    /** A caller now waits on a deferred item: write what is queued in the next turn of the event loop. */
    demand(): void {
      if (queue.length === 0 || ready) return;
      ready = true;
      schedule();
    },

    /** A batch nothing could take yet goes back to the head of the queue, to be tried again. */
    requeue(batch: T[]): void {
      queue = batch.concat(queue);
      ready = true;
      retryTimer ??= setTimeout(() => {
        retryTimer = null;
        pump();
      }, opts.retryMs);
      retryTimer.unref();
    },

    /** Resolves when nothing is queued or in flight. */
    drain(): Promise<void> {
      if (queue.length === 0 && inFlight === 0) return Promise.resolve();
      return new Promise((resolve) => {
        const done = () => {
          if (queue.length > 0 || inFlight > 0) return;
          idle.delete(done);
          resolve();
        };
        idle.add(done);
        ready = queue.length > 0;
        pump();
      });
    },

    close(): void {
      closed = true;
      if (deferTimer) clearTimeout(deferTimer);
      if (retryTimer) clearTimeout(retryTimer);
    },
  };
}

export type BatchQueue<T> = ReturnType<typeof createBatchQueue<T>>;
