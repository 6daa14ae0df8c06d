import { describe, expect, it } from "vitest";
import { createAnswerCache } from "../gateway/answer-cache";
import { createInsertionOrderedMap } from "./insertion-ordered-map";

describe("insertion-ordered map", () => {
  it("yields the oldest live entry, skipping entries replaced since", () => {
    const m = createInsertionOrderedMap<{ v: number }>();
    for (const [key, v] of [
      ["a", 1],
      ["b", 2],
      ["a", 3],
    ] as const)
      m.set(key, { v });
    // a's first entry was replaced: b is the oldest live one.
    expect(m.oldest()).toEqual({ key: "b", value: { v: 2 } });
    expect(m.delete("b", m.get("b")!)).toBe(true);
    expect(m.oldest()).toEqual({ key: "a", value: { v: 3 } });
  });

  it("deletes a key only while the given value is still its entry", () => {
    const m = createInsertionOrderedMap<{ v: number }>();
    const first = { v: 1 };
    m.set("a", first);
    m.set("a", { v: 2 });
    expect(m.delete("a", first)).toBe(false);
    expect(m.size).toBe(1);
  });

  it("compacts: one key refreshed a million times keeps the queue small", () => {
    const m = createInsertionOrderedMap<{ i: number }>();
    for (let i = 0; i < 1_000_000; i++) m.set("same", { i });
    expect(m.queued).toBeLessThanOrEqual(4096 + 3);
    expect(m.oldest()?.value).toBe(m.get("same"));
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
