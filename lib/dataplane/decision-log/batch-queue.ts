export type TBatchQueueOptions<T> = {
  /** Items per batch at most. */
  maxBatch: number;
  /** Batches in flight at once. */
  concurrency: number;
  /**
   * A batch beyond the first in flight starts only with at least this many items queued (default
   * 1: any). At maxBatch, extra batches go only when a full one waits: under light load one batch
   * at a time, as large as what arrives meanwhile; more at once only when one cannot keep up.
   */
  extraBatchAt?: number;
  /** After requeue(): how long until the queue tries again by itself. */
  retryMs: number;
  /**
   * Writes one batch. `handOff`: the batch is durable; the next one may start before this one's
   * callers are answered. The batch's place is freed when the promise settles at the latest.
   */
  write: (batch: T[], handOff: () => void) => Promise<void>;
};

type TQueueState<T> = {
  opts: TBatchQueueOptions<T>;
  items: T[];
  /**
   * Whether the queue is to be written now. Deferred items alone do not make it so; an item that
   * is not deferred, a demand() or their timer does, and any batch takes them along.
   */
  ready: boolean;
  deferTimer: NodeJS.Timeout | null;
  /** When deferTimer fires (performance.now()). */
  deferAt: number;
  retryTimer: NodeJS.Timeout | null;
  scheduled: boolean;
  closed: boolean;
  /** Batches being written, and the items in them. */
  inFlight: number;
  inFlightItems: number;
  /** Called when nothing is queued or in flight (drain). */
  idle: Set<() => void>;
};

function schedule<T>(st: TQueueState<T>): void {
  if (st.scheduled || st.closed) return;
  st.scheduled = true;
  // setImmediate lets every request parsed in this turn of the event loop join the batch.
  setImmediate(() => {
    st.scheduled = false;
    pump(st);
  });
}

function takeBatch<T>(st: TQueueState<T>): T[] {
  const { maxBatch } = st.opts;
  const queue = st.items;
  const batch = queue.length <= maxBatch ? queue : queue.slice(0, maxBatch);
  st.items = queue.length <= maxBatch ? [] : queue.slice(maxBatch);
  // The rest of an oversized queue goes next, deferred or not.
  st.ready = st.items.length > 0;
  if (!st.ready && st.deferTimer) {
    clearTimeout(st.deferTimer);
    st.deferTimer = null;
    st.deferAt = Infinity;
  }
  return batch;
}

/** Writes one batch; its place is freed at its handOff or when the write settles, whichever is first. */
function startBatch<T>(st: TQueueState<T>, batch: T[]): void {
  st.inFlight++;
  st.inFlightItems += batch.length;
  let done = false;
  const finish = () => {
    if (done) return;
    done = true;
    st.inFlight--;
    st.inFlightItems -= batch.length;
  };
  // A written batch hands its place on to the next one before its callers are answered.
  const handOff = () => {
    finish();
    pump(st);
  };
  void st.opts.write(batch, handOff).finally(() => {
    finish();
    if (st.items.length > 0) pump(st);
    else if (st.inFlight === 0) for (const fn of st.idle) fn();
  });
}

function pump<T>(st: TQueueState<T>): void {
  const extraAt = st.opts.extraBatchAt ?? 1;
  while (st.items.length > 0 && st.inFlight < st.opts.concurrency && st.ready && (st.inFlight === 0 || st.items.length >= extraAt)) {
    startBatch(st, takeBatch(st));
  }
}

/**
 * The group-commit queue: items wait while a batch is in flight and leave together as the next
 * batch, so one transaction's fixed cost is shared by everything that arrived meanwhile.
 */
export function createBatchQueue<T>(opts: TBatchQueueOptions<T>) {
  const st: TQueueState<T> = {
    opts,
    items: [],
    ready: false,
    deferTimer: null,
    deferAt: Infinity,
    retryTimer: null,
    scheduled: false,
    closed: false,
    inFlight: 0,
    inFlightItems: 0,
    idle: new Set(),
  };

  return {
    /** Items waiting for a batch. */
    get queued(): number {
      return st.items.length;
    },
    /** Items in batches being written. */
    get inFlight(): number {
      return st.inFlightItems;
    },

    /** Queues an item: written in the next batch, or (deferMs) with the next batch something else starts, or after deferMs at the latest. */
    add(item: T, deferMs?: number): void {
      if (deferMs === undefined) {
        st.ready = true;
        schedule(st);
      } else {
        // The earliest deadline of what waits: a short wait (decide's) is not held up by a long one (execute's).
        const at = performance.now() + deferMs;
        if (at < st.deferAt) {
          if (st.deferTimer) clearTimeout(st.deferTimer);
          st.deferAt = at;
          st.deferTimer = setTimeout(() => {
            st.deferTimer = null;
            st.deferAt = Infinity;
            st.ready = true;
            pump(st);
          }, deferMs);
        }
      }
      st.items.push(item);
    },

    /** A caller now waits on a deferred item: write what is queued in the next turn of the event loop. */
    demand(): void {
      if (st.items.length === 0 || st.ready) return;
      st.ready = true;
      schedule(st);
    },

    /** A batch nothing could take yet goes back to the head of the queue, to be tried again. */
    requeue(batch: T[]): void {
      st.items = batch.concat(st.items);
      st.ready = true;
      st.retryTimer ??= setTimeout(() => {
        st.retryTimer = null;
        pump(st);
      }, opts.retryMs);
      st.retryTimer.unref();
    },

    /** Resolves when nothing is queued or in flight. */
    drain(): Promise<void> {
      if (st.items.length === 0 && st.inFlight === 0) return Promise.resolve();
      return new Promise((resolve) => {
        const done = () => {
          if (st.items.length > 0 || st.inFlight > 0) return;
          st.idle.delete(done);
          resolve();
        };
        st.idle.add(done);
        st.ready = st.items.length > 0;
        pump(st);
      });
    },

    close(): void {
      st.closed = true;
      if (st.deferTimer) clearTimeout(st.deferTimer);
      if (st.retryTimer) clearTimeout(st.retryTimer);
    },
  };
}

export type BatchQueue<T> = ReturnType<typeof createBatchQueue<T>>;
