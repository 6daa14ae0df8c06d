import { describe, expect, it } from "vitest";
import { serverTimeoutsFromEnv } from "./server-timeouts";

describe("serverTimeoutsFromEnv", () => {
  it("defaults to seconds, not Node's minutes, and checks them at least once a second", () => {
    expect(serverTimeoutsFromEnv({})).toEqual({ headersTimeout: 5_000, requestTimeout: 10_000, connectionsCheckingInterval: 1_000 });
    expect(serverTimeoutsFromEnv({ HEADERS_TIMEOUT_MS: "400", REQUEST_TIMEOUT_MS: "800" })).toEqual({
      headersTimeout: 400,
      requestTimeout: 800,
      connectionsCheckingInterval: 100,
    });
  });

  it("fails the start on a bad value, naming the variable", () => {
    expect(() => serverTimeoutsFromEnv({ REQUEST_TIMEOUT_MS: "0" })).toThrow(/REQUEST_TIMEOUT_MS/);
    expect(() => serverTimeoutsFromEnv({ HEADERS_TIMEOUT_MS: "5s" })).toThrow(/HEADERS_TIMEOUT_MS/);
    expect(() => serverTimeoutsFromEnv({ HEADERS_TIMEOUT_MS: "20000" })).toThrow(/must not exceed REQUEST_TIMEOUT_MS/);
  });
});
