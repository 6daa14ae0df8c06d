import { describe, expect, it } from "vitest";
import { createIdempotencyCache, type TCachedAnswer } from "./idempotency";

const answer = (id: string, size = 100): TCachedAnswer => ({
  decisionId: id,
  text: "x".repeat(size),
  list: null,
  request: { region: "EU", attributesDigest: null },
});
/** Lets the cache's then() callbacks run. */
const settle = () => new Promise((r) => setTimeout(r, 0));

describe("decide idempotency cache", () => {
  it("answers a key within the window and forgets it after", async () => {
    let t = 1_000;
    const cache = createIdempotencyCache({ ttlMs: 5_000, maxBytes: 1e9, now: () => t });
    cache.set("a", Promise.resolve(answer("d1")));
    await settle();
    expect((await cache.get("a"))?.decisionId).toBe("d1");
    t += 5_000;
    expect(cache.get("a")).toBeNull();
    expect(cache.stats()).toEqual({ entries: 0, bytes: 0 });
  });

  it("evicts the oldest entries first once over its byte bound, and counts bytes exactly", async () => {
    // Each entry: key (2 chars) + 512 + 100 bytes of text = 614; the bound holds three.
    const cache = createIdempotencyCache({ ttlMs: 60_000, maxBytes: 3 * 614, now: () => 0 });
    for (let i = 0; i < 10; i++) {
      cache.set(`k${i}`, Promise.resolve(answer(`d${i}`)));
      await settle();
    }
    expect(cache.stats()).toEqual({ entries: 3, bytes: 3 * 614 });
    expect(cache.get("k6")).toBeNull();
    for (const k of ["k7", "k8", "k9"]) expect(cache.get(k)).not.toBeNull();
  });

  it("expires entries in insertion order as time passes, without another lookup", async () => {
    let t = 0;
    const cache = createIdempotencyCache({ ttlMs: 1_000, maxBytes: 1e9, now: () => t });
    for (let i = 0; i < 5; i++) {
      t = i * 100;
      cache.set(`k${i}`, Promise.resolve(answer(`d${i}`)));
      await settle();
    }
    t = 1_250; // k0, k1 and k2 (set at 0, 100, 200) have expired
    cache.set("late", Promise.resolve(answer("dl")));
    await settle();
    expect(cache.stats().entries).toBe(3);
    expect(cache.get("k3")).not.toBeNull();
  });

  it("forgets a rejected answer so a retry decides again", async () => {
    const cache = createIdempotencyCache({ ttlMs: 60_000, maxBytes: 1e9, now: () => 0 });
    const failed = Promise.reject(new Error("log refused"));
    failed.catch(() => {});
    cache.set("a", failed);
    await settle();
    expect(cache.get("a")).toBeNull();
    expect(cache.stats()).toEqual({ entries: 0, bytes: 0 });
  });

  it("replacing a key releases the old entry's bytes, and its stale slot is not evicted in the new one's place", async () => {
    const cache = createIdempotencyCache({ ttlMs: 60_000, maxBytes: 2 * 613, now: () => 0 });
    cache.set("a", Promise.resolve(answer("old")));
    await settle();
    cache.set("b", Promise.resolve(answer("b")));
    await settle();
    cache.set("a", Promise.resolve(answer("new")));
    await settle();
    expect(cache.stats()).toEqual({ entries: 2, bytes: 2 * 613 });
    expect((await cache.get("a"))?.decisionId).toBe("new");
    expect((await cache.get("b"))?.decisionId).toBe("b");
  });

  it("stays bounded over many evictions (the queue compacts)", async () => {
    const cache = createIdempotencyCache({ ttlMs: 60_000, maxBytes: 100 * 628, now: () => 0 });
    for (let i = 0; i < 20_000; i++) cache.set(`key-${i}`, Promise.resolve(answer(`d${i}`)));
    await settle();
    // Entries are 621 bytes each (9-character keys): the newest 101 fit.
    expect(cache.stats()).toEqual({ entries: 101, bytes: 101 * 621 });
    expect(cache.get("key-19999")).not.toBeNull();
    expect(cache.get("key-0")).toBeNull();
  });

  it("begin/settle/drop: a concurrent duplicate's promise is made only when one asks, the settled answer is kept as it is", async () => {
    const cache = createIdempotencyCache({ ttlMs: 60_000, maxBytes: 1e9, now: () => 0 });
    let made = 0;
    const slot = cache.begin("a", () => {
      made++;
      return Promise.resolve(answer("d1"));
    });
    expect(made).toBe(0);
    const waiting = cache.get("a");
    expect(waiting).toBeInstanceOf(Promise);
    expect(cache.get("a")).toBe(waiting);
    expect(made).toBe(1);
    expect((await waiting)?.decisionId).toBe("d1");
    const settled = answer("d1");
    cache.settle(slot, settled);
    expect(cache.get("a")).toBe(settled);
    expect(cache.stats()).toEqual({ entries: 1, bytes: 1 + 512 + 100 });
    // A failed write is dropped: the next call decides again; a dropped or replaced slot settles nothing.
    const failed = cache.begin("b", () => Promise.reject(new Error("never asked")));
    cache.drop(failed);
    cache.settle(failed, answer("late"));
    expect(cache.get("b")).toBeNull();
    const first = cache.begin("c", () => Promise.resolve(answer("c1")));
    const second = cache.begin("c", () => Promise.resolve(answer("c2")));
    cache.settle(first, answer("c1"));
    expect(cache.get("c")).toBeInstanceOf(Promise);
    cache.settle(second, answer("c2"));
    expect((cache.get("c") as TCachedAnswer).decisionId).toBe("c2");
    expect(cache.stats()).toEqual({ entries: 2, bytes: 2 * (1 + 512 + 100) });
  });
});
