import { describe, expect, it } from "vitest";
import { contextWindowFits } from "./context-window-fits";

describe("context_window_fits", () => {
  it("passes a request that fits, saying how much of the window it uses", () => {
    expect(contextWindowFits({ estimatedTokens: 3_000, contextWindow: 8_192, model: "small-8k" })).toEqual({
      gate: "context_window_fits",
      passed: true,
      detail: "about 3000 of small-8k's 8192 tokens",
    });
  });

  it("fails a request larger than the window, naming both numbers", () => {
    expect(contextWindowFits({ estimatedTokens: 9_000, contextWindow: 8_192, model: "small-8k" })).toEqual({
      gate: "context_window_fits",
      passed: false,
      detail: "request needs about 9000 tokens; small-8k's context window is 8192",
    });
  });

  it("passes exactly at the window and when no window is configured", () => {
    expect(contextWindowFits({ estimatedTokens: 8_192, contextWindow: 8_192, model: null }).passed).toBe(true);
    expect(contextWindowFits({ estimatedTokens: 1e9, contextWindow: null, model: "x" }).passed).toBe(true);
  });

  it("rejects a negative estimate", () => {
    expect(() => contextWindowFits({ estimatedTokens: -1, contextWindow: 10, model: null })).toThrow(/estimatedTokens must be >= 0, got -1/);
  });
});
