import { describe, expect, it } from "vitest";
import { ContractError } from "../errors/api-errors";
import { ACCOUNT_BACKOFF, ADDRESS_BACKOFF, addressKey, backoffMs, createSignInThrottle, type TSignInThrottle } from "./sign-in-throttle";

function clock(start = 1_000_000) {
  let t = start;
  return { now: () => t, advance: (ms: number) => (t += ms) };
}

/** The refusal's wait in seconds, or 0 when the attempt may go ahead (and then it fails). */
function tryFail(throttle: TSignInThrottle, account: string, ip: string): number {
  try {
    throttle.begin(account, ip).failed();
    return 0;
  } catch (err) {
    expect(err).toBeInstanceOf(ContractError);
    const e = err as ContractError;
    expect([e.status, e.code]).toEqual([429, "throttled"]);
    return e.retryAfterSeconds!;
  }
}

describe("sign-in throttle", () => {
  it("grows delays exponentially after the free attempts, capped", () => {
    expect([5, 6, 7, 8].map((n) => backoffMs(ADDRESS_BACKOFF, n))).toEqual([0, 1_000, 2_000, 4_000]);
    expect(backoffMs(ADDRESS_BACKOFF, 100)).toBe(ADDRESS_BACKOFF.capMs);
    expect(backoffMs(ACCOUNT_BACKOFF, 100)).toBe(5 * 60_000);
    // The address is the stricter key: it is throttled earlier.
    expect(ADDRESS_BACKOFF.free).toBeLessThan(ACCOUNT_BACKOFF.free);
  });

  it("refuses with a Retry-After once an address has used its free attempts, and counts what it refused", () => {
    const c = clock();
    const throttle = createSignInThrottle({ now: c.now });
    for (let i = 0; i < ADDRESS_BACKOFF.free; i++) expect(tryFail(throttle, `user${i}@example.com`, "198.51.100.7")).toBe(0);
    // The sixth goes ahead and earns the first delay; the seventh waits for it.
    expect(throttle.begin("x@example.com", "198.51.100.7").failed()).toEqual({ blockedForSeconds: 1 });
    expect(tryFail(throttle, "y@example.com", "198.51.100.7")).toBe(1);
    expect(tryFail(throttle, "z@example.com", "198.51.100.7")).toBe(1);
    // Another address is not affected.
    expect(tryFail(throttle, "y@example.com", "198.51.100.8")).toBe(0);
    c.advance(1_000);
    expect(throttle.begin("y@example.com", "198.51.100.7").failed()).toEqual({ refusedWhileThrottled: 2, blockedForSeconds: 2 });
  });

  it("counts an attempt from its start, so concurrent attempts cannot all slip past the check", () => {
    const throttle = createSignInThrottle({ now: clock().now });
    const started: unknown[] = [];
    let refused = 0;
    for (let i = 0; i < 50; i++) {
      try {
        started.push(throttle.begin("victim@example.com", "203.0.113.1"));
      } catch {
        refused += 1;
      }
    }
    expect(started).toHaveLength(ADDRESS_BACKOFF.free + 1);
    expect(refused).toBe(50 - ADDRESS_BACKOFF.free - 1);
  });

  it("a success resets the account and gives the address its attempt back; an abandoned attempt is not counted", () => {
    const c = clock();
    const throttle = createSignInThrottle({ now: c.now });
    for (let i = 0; i < 4; i++) tryFail(throttle, "me@example.com", "192.0.2.1");
    throttle.begin("me@example.com", "192.0.2.1").succeeded();
    throttle.begin("me@example.com", "192.0.2.1").abandoned();
    // Four failures so far at this address, none for the account: one more is free.
    expect(tryFail(throttle, "me@example.com", "192.0.2.1")).toBe(0);
    expect(throttle.begin("other@example.com", "192.0.2.1").failed()).toEqual({ blockedForSeconds: 1 });
  });

  it("forgets a key after a quiet period", () => {
    const c = clock();
    const throttle = createSignInThrottle({ now: c.now });
    for (let i = 0; i < 8; i++) {
      const wait = tryFail(throttle, "a@example.com", "192.0.2.9");
      c.advance(wait * 1000);
    }
    expect(tryFail(throttle, "a@example.com", "192.0.2.9")).toBeGreaterThan(0);
    c.advance(ADDRESS_BACKOFF.forgetMs + ADDRESS_BACKOFF.capMs);
    expect(tryFail(throttle, "b@example.com", "192.0.2.9")).toBe(0);
  });

  it("an attacker at one address, as fast as allowed for six hours, keeps the owner out only briefly, and never from where they signed in before", () => {
    const c = clock();
    const throttle = createSignInThrottle({ now: c.now });
    // The owner signed in from home before the attack.
    throttle.begin("victim@example.com", "198.51.100.200").succeeded();
    const hours = 6;
    const end = c.now() + hours * 3600_000;
    let attackerFailures = 0;
    const probe = { everyMs: 10_000, sinceMs: 0, blockedAtHome: 0, blockedElsewhere: 0, longestWaitMs: 0 };
    const owner = (ip: string) => {
      try {
        throttle.begin("victim@example.com", ip).abandoned();
        return 0;
      } catch (err) {
        return (err as ContractError).retryAfterSeconds! * 1000;
      }
    };
    while (c.now() < end) {
      const wait = tryFail(throttle, "victim@example.com", "203.0.113.66");
      if (wait === 0) attackerFailures += 1;
      const until = c.now() + Math.max(wait * 1000, 1_000);
      while (c.now() < until) {
        const step = Math.min(probe.everyMs - probe.sinceMs, until - c.now());
        c.advance(step);
        probe.sinceMs += step;
        if (probe.sinceMs < probe.everyMs) continue;
        probe.sinceMs = 0;
        if (owner("198.51.100.200") > 0) probe.blockedAtHome += 1;
        const elsewhere = owner(`192.0.2.${1 + (Math.floor(c.now() / 1000) % 200)}`);
        if (elsewhere > 0) probe.blockedElsewhere += 1;
        probe.longestWaitMs = Math.max(probe.longestWaitMs, elsewhere);
      }
    }
    const probes = (hours * 3600_000) / probe.everyMs;
    // One address gets a few dozen guesses in six hours.
    expect(attackerFailures).toBeLessThan(40);
    expect(probe.blockedAtHome).toBe(0);
    // From a new address the owner waits at most the account's cap, and only part of the time.
    expect(probe.longestWaitMs).toBeLessThanOrEqual(ACCOUNT_BACKOFF.capMs);
    expect(probe.blockedElsewhere / probes).toBeLessThan(0.4);
  });

  it("treats an IPv6 /64 as one address, and an IPv4-mapped address as its IPv4 address", () => {
    expect(addressKey("2001:db8:1:2:aaaa::1")).toBe("2001:db8:1:2::/64");
    expect(addressKey("2001:db8:1:2:ffff:ffff:ffff:ffff")).toBe("2001:db8:1:2::/64");
    expect(addressKey("2001:db8::1")).toBe("2001:db8:0:0::/64");
    expect(addressKey("::1")).toBe("0:0:0:0::/64");
    expect(addressKey("::ffff:192.0.2.4")).toBe("192.0.2.4");
    expect(addressKey("192.0.2.4")).toBe("192.0.2.4");
    expect(addressKey(null)).toBe("unknown");
  });
});
