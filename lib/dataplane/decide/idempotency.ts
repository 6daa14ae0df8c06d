/**
 * Per-instance memory of recent decide answers by (operation, requestId): a retry on the same
 * instance gets the same body without deciding again, and concurrent duplicates share one
 * decision (the second waits on the first's promise). Entries live for the idempotency window
 * and the cache is bounded in bytes; past the bound the oldest go first, and the decision
 * table's (operation, request_id) lookup in the group commit still answers those retries.
 */
/**
 * The body is a Buffer: its bytes live outside the V8 heap. Kept as strings, every answer lived
 * long enough in this cache to be copied by two young-generation collections and promoted, which
 * made each scavenge take 20–50 ms at a few thousand decides/s (most of the data plane's GC time).
 */
export type TCachedAnswer = { body: Buffer; decisionId: string };

/** An answer's bytes in memory of their own (not a slice of Node's shared pool, which a cached entry would keep alive). */
export function answerBytes(text: string): Buffer {
  const bytes = Buffer.allocUnsafeSlow(Buffer.byteLength(text));
  bytes.write(text);
  return bytes;
}

type TEntry = { expiresAt: number; bytes: number; answer: Promise<TCachedAnswer> };

export function createIdempotencyCache(opts: { ttlMs: number; maxBytes: number; now?: () => number }) {
  const now = opts.now ?? Date.now;
  // Insertion order is expiry order (one TTL for all), so eviction and expiry both take from the front.
  const entries = new Map<string, TEntry>();
  let bytes = 0;

  function evict(): void {
    const t = now();
    for (const [key, e] of entries) {
      if (e.expiresAt > t && bytes <= opts.maxBytes) break;
      entries.delete(key);
      bytes -= e.bytes;
    }
  }

  return {
    get(key: string): Promise<TCachedAnswer> | null {
      const e = entries.get(key);
      if (!e) return null;
      if (e.expiresAt <= now()) {
        entries.delete(key);
        bytes -= e.bytes;
        return null;
      }
      return e.answer;
    },

    /** Registers an answer in progress; a rejected answer is forgotten so a retry decides again. */
    set(key: string, answer: Promise<TCachedAnswer>): void {
      const entry: TEntry = { expiresAt: now() + opts.ttlMs, bytes: key.length + 64, answer };
      entries.set(key, entry);
      bytes += entry.bytes;
      answer.then(
        (a) => {
          if (entries.get(key) !== entry) return;
          entry.bytes += a.body.length;
          bytes += a.body.length;
          evict();
        },
        () => {
          if (entries.get(key) !== entry) return;
          entries.delete(key);
          bytes -= entry.bytes;
        },
      );
    },

    stats(): { entries: number; bytes: number } {
      return { entries: entries.size, bytes };
    },
  };
}

export type IdempotencyCache = ReturnType<typeof createIdempotencyCache>;
