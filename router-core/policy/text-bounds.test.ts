import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { parseFactorList } from "./codec";
import { MAX_POLICY_NESTING, MAX_POLICY_TEXT_CHARS, checkPolicyTextBounds } from "./text-bounds";

const listing1 = readFileSync(new URL("./listing1.yaml", import.meta.url), "utf8");

describe("checkPolicyTextBounds", () => {
  it("passes the paper's Listing 1 and its flattened copy", () => {
    expect(checkPolicyTextBounds(listing1)).toBeNull();
    expect(checkPolicyTextBounds(readFileSync(new URL("./listing1.flat.yaml", import.meta.url), "utf8"))).toBeNull();
  });

  it("refuses deep flow nesting before the parser sees it (100 KB of '[' once took 7 s)", () => {
    const result = parseFactorList("[".repeat(100_000));
    expect(result.ok).toBe(false);
    if (!result.ok) expect(result.errors[0]?.message).toMatch(/limit is/);
    expect(checkPolicyTextBounds(`a: ${"[".repeat(MAX_POLICY_NESTING + 1)}`)).not.toBeNull();
    expect(checkPolicyTextBounds(`a: ${"[".repeat(8)}${"]".repeat(8)}`)).toBeNull();
  });

  it("refuses deep block nesting by indentation and by compact sequences", () => {
    const blocks = Array.from({ length: MAX_POLICY_NESTING + 2 }, (_, i) => `${" ".repeat(i)}k${i}:`).join("\n");
    expect(checkPolicyTextBounds(blocks)).not.toBeNull();
    expect(checkPolicyTextBounds(`${"- ".repeat(MAX_POLICY_NESTING + 1)}x`)).not.toBeNull();
  });

  it("does not let a comment or a quote hide nesting the parser would see", () => {
    // "]" inside a comment closes nothing for the parser.
    const commented = `a: ${"[".repeat(20)} # ${"]".repeat(20)}\n  ${"[".repeat(20)}`;
    expect(checkPolicyTextBounds(commented)).not.toBeNull();
    // An apostrophe inside a plain scalar opens no quoted string.
    expect(checkPolicyTextBounds(`note: don't\nb: ${"[".repeat(MAX_POLICY_NESTING + 1)}`)).not.toBeNull();
  });

  it("counts brackets inside real quoted strings as text", () => {
    expect(checkPolicyTextBounds(`note: "${"[".repeat(100)}"`)).toBeNull();
  });

  it("refuses text over the size limit", () => {
    expect(checkPolicyTextBounds(`# ${"x".repeat(MAX_POLICY_TEXT_CHARS)}`)?.message).toMatch(/limit is 262144/);
  });
});
