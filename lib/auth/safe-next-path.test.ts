import { describe, expect, it } from "vitest";
import { safeNextPath } from "./current-user";

/** How a browser would resolve the Location header: off-site if the origin changes. */
const staysOnSite = (location: string) => new URL(location, "https://switchyard.test/login").origin === "https://switchyard.test";

describe("safeNextPath: where sign-in may send the browser", () => {
  const refused: [string, unknown][] = [
    ["tab between slashes (the reported open redirect)", "/\t/attacker.invalid/phish"],
    ["newline between slashes", "/\n/attacker.invalid"],
    ["carriage return between slashes", "/\r/attacker.invalid"],
    ["leading tab", "\t//attacker.invalid"],
    ["protocol-relative", "//attacker.invalid/phish"],
    ["backslash after slash", "/\\attacker.invalid"],
    ["backslash first", "\\\\attacker.invalid"],
    ["backslash then slash", "\\/attacker.invalid"],
    ["slash, backslash, slash", "/\\/attacker.invalid"],
    ["absolute http URL", "http://attacker.invalid/"],
    ["absolute https URL", "https://attacker.invalid/"],
    ["scheme without slashes", "https:attacker.invalid"],
    ["javascript URL", "javascript:alert(1)"],
    ["data URL", "data:text/html,<script>alert(1)</script>"],
    ["relative path without a slash", "attacker.invalid"],
    ["NUL byte", "/\u0000/attacker.invalid"],
    ["DEL", "/\u007f/attacker.invalid"],
    ["C1 control", "/\u0085/attacker.invalid"],
    ["empty", ""],
    ["not a string", ["/ok"]],
    ["undefined", undefined],
    ["very long", `/${"a".repeat(5000)}`],
  ];
  it.each(refused)("refuses %s", (_label, input) => {
    expect(safeNextPath(input)).toBe("/");
  });

  const kept: [string, string, string][] = [
    ["a console path", "/decisions", "/decisions"],
    ["a path with a query", "/factor-lists/new?operation=SEND_SMS", "/factor-lists/new?operation=SEND_SMS"],
    ["a path with a fragment", "/audit#latest", "/audit#latest"],
    ["dot segments, normalised", "/a/../governance/access", "/governance/access"],
    ["encoded slashes stay encoded", "/%2F%2Fattacker.invalid", "/%2F%2Fattacker.invalid"],
    ["encoded tab stays encoded", "/%09/attacker.invalid", "/%09/attacker.invalid"],
    ["dot segment that would leave a double slash", "/.//attacker.invalid", "/"],
  ];
  it.each(kept)("keeps %s on this site", (_label, input, expected) => {
    const out = safeNextPath(input);
    expect(out).toBe(expected);
    expect(staysOnSite(out)).toBe(true);
  });

  it("never returns anything a browser resolves off-site, for any of the inputs", () => {
    for (const [, input] of [...refused, ...kept.map(([l, i]) => [l, i] as [string, unknown])]) expect(staysOnSite(safeNextPath(input))).toBe(true);
  });
});
