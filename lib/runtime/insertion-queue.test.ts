import { describe, expect, it } from "vitest";
import { createAnswerCache } from "../gateway/answer-cache";
import { createInsertionQueue } from "./insertion-queue";

describe("insertion queue", () => {
  it("yields the oldest live entry, skipping entries its cache replaced", () => {
    const current = new Map<string, { key: string; v: number }>();
    const q = createInsertionQueue<{ key: string; v: number }>((e) => current.get(e.key) === e);
    for (const [key, v] of [["a", 1], ["b", 2], ["a", 3]] as const) {
      const e = { key, v };
      current.set(key, e);
      q.push(e, current.size);
    }
    // a's first entry was replaced: b is the oldest live one.
    expect(q.oldest()).toEqual({ key: "b", v: 2 });
    current.delete("b");
    q.dropOldest(current.size);
    expect(q.oldest()).toEqual({ key: "a", v: 3 });
  });

  it("compacts: one key refreshed a million times keeps the queue small", () => {
    const current = new Map<string, { key: string }>();
    const q = createInsertionQueue<{ key: string }>((e) => current.get(e.key) === e);
    for (let i = 0; i < 1_000_000; i++) {
      const e = { key: "same" };
      current.set("same", e);
      q.push(e, current.size);
    }
    expect(q.length).toBeLessThanOrEqual(4096 + 3);
    expect(q.oldest()).toBe(current.get("same"));
  });
});

describe("execute's answer cache", () => {
  it("evicts the least recently stored input first; a refreshed input counts from its refresh", () => {
    let t = 0;
    const cache = createAnswerCache(2, () => t);
    cache.put("OP", { q: 1 }, "one");
    cache.put("OP", { q: 2 }, "two");
    t = 1_000;
    cache.put("OP", { q: 1 }, "one again");
    cache.put("OP", { q: 3 }, "three");
    expect(cache.get("OP", { q: 2 }, 60)).toBeNull();
    expect(cache.get("OP", { q: 1 }, 60)).toEqual({ body: "one again", ageSeconds: 0 });
    expect(cache.get("OP", { q: 3 }, 60)?.body).toBe("three");
  });

  it("does not answer past the operation's TTL", () => {
    let t = 0;
    const cache = createAnswerCache(10, () => t);
    cache.put("OP", { q: 1 }, "one");
    t = 31_000;
    expect(cache.get("OP", { q: 1 }, 60)).toEqual({ body: "one", ageSeconds: 31 });
    expect(cache.get("OP", { q: 1 }, 30)).toBeNull();
  });
});
