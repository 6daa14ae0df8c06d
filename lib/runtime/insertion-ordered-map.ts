/**
 * A Map that also yields its oldest entry in amortised O(1), for caches that evict oldest first.
 * Not by evicting from a Map's front (`map.keys().next()`, or a for-of that breaks early): V8's
 * Map iteration walks the slots of every key deleted since the table last rehashed, so evicting
 * from its front on every insert costs time in proportion to the entries evicted before
 * (bench/README.md, "Investigations").
 *
 * The order is a queue of (key, value) pairs beside the Map, kept in chunks of CHUNK pairs: the
 * front chunk is dropped once read past, so evicting oldest first never copies the queue (a
 * single array sliced when its consumed front dominated copied a full cache at once, blocking
 * the event loop). A replaced or deleted
 * entry stays queued until it reaches the front, or until stale pairs outnumber live ones, when
 * the queue is rebuilt from the live ones. Setting a key again makes it the newest. Values must
 * be distinct objects per set() (the queue tells a stale pair from the live one by identity).
 */
const CHUNK = 1024;

type TChunk<V> = { keys: string[]; values: (V | undefined)[]; next: TChunk<V> | null };

const newChunk = <V>(): TChunk<V> => ({ keys: [], values: [], next: null });

export function createInsertionOrderedMap<V>() {
  const map = new Map<string, V>();
  let head: TChunk<V> = newChunk();
  let tail = head;
  /** The next pair to read in `head`. */
  let at = 0;
  /** Pairs queued from `at` on, stale ones included. */
  let queued = 0;

  function push(key: string, value: V): void {
    if (tail.keys.length === CHUNK) {
      const next = newChunk<V>();
      tail.next = next;
      tail = next;
    }
    tail.keys.push(key);
    tail.values.push(value);
    queued++;
  }

  /** Rebuilds the queue from its live pairs, once stale ones outnumber them (many replacements or deletes). */
  function compact(): void {
    if (queued <= 2 * map.size + 4096) return;
    const old = head;
    let from = at;
    head = tail = newChunk();
    at = 0;
    queued = 0;
    for (let c: TChunk<V> | null = old; c; c = c.next, from = 0) {
      for (let i = from; i < c.keys.length; i++) {
        const v = c.values[i];
        if (v !== undefined && map.get(c.keys[i]!) === v) push(c.keys[i]!, v);
      }
    }
  }

  return {
    get: (key: string): V | undefined => map.get(key),

    set(key: string, value: V): void {
      map.set(key, value);
      push(key, value);
      compact();
    },

    /** Deletes `key` if `value` is still its entry; says whether it was. */
    delete(key: string, value: V): boolean {
      if (map.get(key) !== value) return false;
      map.delete(key);
      return true;
    },

    /** The oldest live entry, or undefined when empty. Stale pairs read past are let go. */
    oldest(): { key: string; value: V } | undefined {
      for (;;) {
        if (at === head.keys.length) {
          if (head.next === null) return undefined;
          head = head.next;
          at = 0;
          continue;
        }
        const key = head.keys[at]!;
        const value = head.values[at];
        if (value !== undefined && map.get(key) === value) return { key, value };
        head.values[at] = undefined;
        at++;
        queued--;
      }
    },

    get size(): number {
      return map.size;
    },

    /** Pairs in the order queue, stale ones included (for tests of its bound). */
    get queued(): number {
      return queued;
    },
  };
}

export type InsertionOrderedMap<V> = ReturnType<typeof createInsertionOrderedMap<V>>;
