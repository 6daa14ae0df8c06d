import { describe, expect, it } from "vitest";
import { classifyStatus, classifyTransportError, MAX_ATTEMPT_DETAIL, parseDuration, parseRateLimit, transportDetail } from "./classify";

const NOW = Date.UTC(2026, 10, 30, 12, 0, 0);

describe("classifyStatus", () => {
  it.each([
    [500, "transient", "http_5xx"],
    [503, "transient", "http_5xx"],
    [408, "transient", "timeout"],
    [429, "rate_limit", "throttled"],
    [400, "permanent", "http_4xx"],
    [401, "permanent", "http_4xx"],
    [404, "permanent", "http_4xx"],
  ] as const)("%i is %s (%s)", (status, cls, outcome) => {
    const e = classifyStatus(status, {}, null, NOW);
    expect([e.errorClass, e.outcomeClass, e.status]).toEqual([cls, outcome, status]);
  });

  it("keeps a 429's Retry-After and marks the provider exhausted", () => {
    expect(classifyStatus(429, { "retry-after": "7" }, null, NOW).rateLimit).toEqual({ retryAfterSeconds: 7, exhausted: true });
    expect(classifyStatus(429, {}, null, NOW).rateLimit).toEqual({ retryAfterSeconds: null, exhausted: true });
  });
});

describe("classifyTransportError", () => {
  it("calls a timeout a timeout and a reset a network failure, both transient", () => {
    expect(classifyTransportError(new Error("x"), true)).toMatchObject({ errorClass: "transient", outcomeClass: "timeout" });
    expect(classifyTransportError(Object.assign(new Error("read ECONNRESET"), { code: "ECONNRESET" }), false)).toMatchObject({
      errorClass: "transient",
      outcomeClass: "network",
    });
  });

  it("keeps the cause for the drilldown (code, address, port) but no URL's path, query or user part, within 500 characters", () => {
    const refused = Object.assign(new Error("connect ECONNREFUSED 10.0.0.7:8443"), {
      code: "ECONNREFUSED",
      syscall: "connect",
      address: "10.0.0.7",
      port: 8443,
    });
    expect(transportDetail(refused)).toBe("connect ECONNREFUSED 10.0.0.7:8443");
    expect(transportDetail(Object.assign(new Error("getaddrinfo failed"), { code: "ENOTFOUND", hostname: "sms.internal" }))).toBe(
      "ENOTFOUND sms.internal: getaddrinfo failed",
    );
    const leaky = new Error("request to https://user:pw@api.example.test/v1/send?key=s3cret failed");
    expect(transportDetail(leaky)).toBe("request to https://api.example.test failed");
    expect(transportDetail(new Error("x".repeat(2000)))).toHaveLength(MAX_ATTEMPT_DETAIL);
  });

  it("names a redirect's target by scheme and host only, for the log and drilldown, not the caller", () => {
    const e = classifyStatus(302, { location: "http://169.254.169.254/latest/meta-data/?token=abc" }, null, NOW);
    expect(e.logDetail).toBe("redirect 302 to http://169.254.169.254");
    expect(e.message).not.toContain("169.254");
    expect(classifyStatus(301, { location: "/elsewhere" }, null, NOW).logDetail).toBe("redirect 301 to a relative location");
  });
});

describe("parseRateLimit", () => {
  it("reads Retry-After as seconds or an HTTP date, and retry-after-ms", () => {
    expect(parseRateLimit({ "retry-after": "12" }, NOW)).toEqual({ retryAfterSeconds: 12, exhausted: false });
    expect(parseRateLimit({ "retry-after": new Date(NOW + 30_000).toUTCString() }, NOW)).toEqual({ retryAfterSeconds: 30, exhausted: false });
    expect(parseRateLimit({ "retry-after-ms": "1500", "retry-after": "9" }, NOW)).toEqual({ retryAfterSeconds: 1.5, exhausted: false });
  });

  it("treats remaining 0 as exhausted until OpenAI's, the generic or Anthropic's reset", () => {
    expect(parseRateLimit({ "x-ratelimit-remaining-requests": "0", "x-ratelimit-reset-requests": "6m0s" }, NOW)).toEqual({
      retryAfterSeconds: 360,
      exhausted: true,
    });
    expect(parseRateLimit({ "x-ratelimit-remaining": "0", "x-ratelimit-reset": String(NOW / 1000 + 20) }, NOW)).toEqual({
      retryAfterSeconds: 20,
      exhausted: true,
    });
    expect(
      parseRateLimit({ "anthropic-ratelimit-requests-remaining": "0", "anthropic-ratelimit-requests-reset": new Date(NOW + 5_000).toISOString() }, NOW),
    ).toEqual({ retryAfterSeconds: 5, exhausted: true });
  });

  it("says nothing when there is nothing to honour", () => {
    expect(parseRateLimit({ "x-ratelimit-remaining-requests": "10", "x-ratelimit-reset-requests": "1s" }, NOW)).toBeNull();
    expect(parseRateLimit({}, NOW)).toBeNull();
  });
});

describe("parseDuration", () => {
  it.each([
    ["6m0s", 360],
    ["1.5s", 1.5],
    ["20ms", 0.02],
    ["1h2m", 3720],
    ["7", 7],
  ] as const)("%s is %d s", (text, seconds) => {
    expect(parseDuration(text)).toBeCloseTo(seconds, 9);
  });

  it("refuses text that is not a duration", () => {
    expect(parseDuration("soon")).toBeNull();
    expect(parseDuration("5 minutes")).toBeNull();
  });
});
