import { describe, expect, it } from "vitest";
import { fullJitterDelay } from "./backoff";
import { createRetryBudget } from "./retry-budget";

describe("retry budget", () => {
  it("admits retries up to the ratio of requests in the window, then refuses", () => {
    let t = 1_000_000;
    const b = createRetryBudget({ ratio: 0.2, minPerSecond: 0, windowSeconds: 10 }, () => t);
    for (let i = 0; i < 50; i++) b.request();
    const admitted = Array.from({ length: 20 }, () => b.tryRetry()).filter(Boolean).length;
    expect(admitted).toBe(10);
    t += 11_000;
    expect(b.tryRetry()).toBe(false);
    expect(b.stats()).toEqual({ requests: 0, retries: 0, windowSeconds: 10 });
  });

  it("keeps a floor of retries per second for quiet operations", () => {
    const t = 5_000_000;
    const b = createRetryBudget({ ratio: 0.2, minPerSecond: 3, windowSeconds: 10 }, () => t);
    b.request();
    const admitted = Array.from({ length: 40 }, () => b.tryRetry()).filter(Boolean).length;
    expect(admitted).toBe(30);
  });

  it("forgets old seconds as the window slides", () => {
    let t = 0;
    const b = createRetryBudget({ ratio: 1, minPerSecond: 0, windowSeconds: 3 }, () => t);
    b.request();
    t = 1_000;
    b.request();
    t = 3_000;
    expect(b.stats().requests).toBe(1);
  });

  it("names a bad option", () => {
    expect(() => createRetryBudget({ ratio: -1, minPerSecond: 0 })).toThrow("retry budget ratio must be >= 0, got -1");
  });
});

describe("full jitter backoff", () => {
  it("draws uniformly below min(cap, base * 2^attempt)", () => {
    expect(fullJitterDelay(0, { baseMs: 100, capMs: 1_000 }, () => 0.999)).toBe(99);
    expect(fullJitterDelay(3, { baseMs: 100, capMs: 1_000 }, () => 0.5)).toBe(400);
    expect(fullJitterDelay(10, { baseMs: 100, capMs: 1_000 }, () => 0.999)).toBe(999);
    expect(fullJitterDelay(4, { baseMs: 100, capMs: 1_000 }, () => 0)).toBe(0);
  });
});
