import { describe, expect, it } from "vitest";
import { createRateLimiter, DEFAULT_RATE_LIMIT, rateLimitSettingsFromEnv } from "./rate-limit";

describe("per-key token bucket", () => {
  it("allows the burst, then refuses with the seconds until a token is back, and refills at the rate", () => {
    let t = 0;
    const limiter = createRateLimiter({ defaultLimit: { perSecond: 2, burst: 3 }, overrides: new Map() }, () => t);
    expect([1, 2, 3].map(() => limiter.take("k").ok)).toEqual([true, true, true]);
    expect(limiter.take("k")).toEqual({ ok: false, retryAfterSeconds: 1, limit: { perSecond: 2, burst: 3 } });
    t = 499;
    expect(limiter.take("k").ok).toBe(false);
    t = 1000;
    expect(limiter.take("k").ok).toBe(true);
    expect(limiter.take("k").ok).toBe(true);
    expect(limiter.take("k").ok).toBe(false);
    t = 60_000;
    expect([1, 2, 3, 4].map(() => limiter.take("k").ok)).toEqual([true, true, true, false]);
  });

  it("a batch takes one token per item; one larger than the burst needs a full bucket and leaves a debt", () => {
    let t = 0;
    const limiter = createRateLimiter({ defaultLimit: { perSecond: 10, burst: 20 }, overrides: new Map() }, () => t);
    expect(limiter.take("k", 15).ok).toBe(true);
    expect(limiter.take("k", 6)).toEqual({ ok: false, retryAfterSeconds: 1, limit: { perSecond: 10, burst: 20 } });
    expect(limiter.take("k", 5).ok).toBe(true);
    t = 2_000;
    expect(limiter.take("k", 50).ok).toBe(true);
    // 30 tokens owed: 3.1 s until one is there for the next single call.
    expect(limiter.take("k")).toEqual({ ok: false, retryAfterSeconds: 4, limit: { perSecond: 10, burst: 20 } });
    t = 5_100;
    expect(limiter.take("k").ok).toBe(true);
  });

  it("keeps keys apart and applies per-key overrides; rate 0 is unlimited", () => {
    const limiter = createRateLimiter({ defaultLimit: { perSecond: 1, burst: 1 }, overrides: new Map([["abcd1234", { perSecond: 0, burst: 0 }]]) }, () => 0);
    expect(limiter.take("a").ok).toBe(true);
    expect(limiter.take("a").ok).toBe(false);
    expect(limiter.take("b").ok).toBe(true);
    for (let i = 0; i < 100; i++) expect(limiter.take("abcd1234").ok).toBe(true);
  });

  it("a slow rate tells the caller to wait several seconds", () => {
    const limiter = createRateLimiter({ defaultLimit: { perSecond: 0.2, burst: 1 }, overrides: new Map() }, () => 0);
    limiter.take("k");
    expect(limiter.take("k")).toMatchObject({ ok: false, retryAfterSeconds: 5 });
  });

  it("stays bounded under many distinct keys", () => {
    let t = 0;
    const limiter = createRateLimiter({ defaultLimit: { perSecond: 1, burst: 1 }, overrides: new Map() }, () => t);
    for (let i = 0; i < 25_000; i++) {
      t += 1;
      limiter.take(`k${i}`);
    }
    expect(limiter.size()).toBeLessThanOrEqual(10_000);
  });
});

describe("rate-limit settings from the environment", () => {
  it("defaults to a generous limit for scoped keys and none for the bootstrap key", () => {
    const s = rateLimitSettingsFromEnv({});
    expect(s.defaultLimit).toEqual(DEFAULT_RATE_LIMIT);
    expect(s.overrides.get("env")).toEqual({ perSecond: 0, burst: 0 });
  });

  it("reads a rate, a rate/burst and per-key overrides", () => {
    const s = rateLimitSettingsFromEnv({ API_KEY_RATE_LIMIT: "50", API_KEY_RATE_LIMITS: "ab12cd34=5/10, env=1000" });
    expect(s.defaultLimit).toEqual({ perSecond: 50, burst: 100 });
    expect(s.overrides.get("ab12cd34")).toEqual({ perSecond: 5, burst: 10 });
    expect(s.overrides.get("env")).toEqual({ perSecond: 1000, burst: 2000 });
  });

  it("refuses a bad value, naming the variable and the value", () => {
    expect(() => rateLimitSettingsFromEnv({ API_KEY_RATE_LIMIT: "fast" })).toThrow(/API_KEY_RATE_LIMIT .*"fast"/);
    expect(() => rateLimitSettingsFromEnv({ API_KEY_RATE_LIMITS: "nokey" })).toThrow(/API_KEY_RATE_LIMITS .*"nokey"/);
    expect(() => rateLimitSettingsFromEnv({ API_KEY_RATE_LIMITS: "ab12cd34=-1" })).toThrow(/ab12cd34/);
    expect(() => rateLimitSettingsFromEnv({ API_KEY_RATE_LIMIT: "10/0" })).toThrow(/burst/);
  });
});
