import { describe, expect, it } from "vitest";
import { passwordProblem } from "./password-policy";

describe("the password policy (NIST SP 800-63B 5.1.1.2)", () => {
  it("refuses what the attack review got accepted, and their kin", () => {
    for (const weak of [
      "aaaaaaaaaaaa",
      "password1234",
      " ".repeat(12),
      "Password1234!",
      "p@ssw0rd2024",
      "P4ssw0rd!!!!",
      "passwordpassword",
      "123456789012",
      "abcdefghijkl",
      "qwertyuiop12",
      "zyxwvutsrqpo",
      "abcabcabcabc",
      "ab12ab12ab12",
      "iloveyou2024",
      "Welcome@2024",
      "switchyard2024",
      "monkey123456",
      "short",
    ]) {
      expect(passwordProblem(weak), JSON.stringify(weak)).not.toBeNull();
    }
  });

  it("refuses the account's own email or name", () => {
    expect(passwordProblem("jane.doe.2024!", { email: "jane.doe@example.com" })).toBeNull();
    expect(passwordProblem("janedoe12345", { email: "janedoe@example.com" })).toContain("your email or name");
    expect(passwordProblem("Margarethe!!!1", { name: "Margarethe" })).toContain("your email or name");
  });

  it("accepts long phrases and random strings, without composition rules", () => {
    for (const good of [
      "correct horse battery staple",
      "puppet-password-123",
      "wrong-password-typed-here",
      "mx8#Lq2vR7pZ",
      "über-lange Passphrase 🚂",
      "849301726543",
    ]) {
      expect(passwordProblem(good), good).toBeNull();
    }
  });
});
