import { z } from "zod";
import { invalid } from "../errors";
import { COMMON_PASSWORD_WORDS } from "./common-passwords";

/**
 * The password policy, after NIST SP 800-63B 5.1.1.2: a minimum length, no composition rules
 * (no "one digit, one symbol"), and a check against what attackers try first: common and
 * breached passwords, repetition, sequences, and words from the service or the account itself.
 * Every place a password is set (creating a user or the first admin, changing one's own,
 * an admin's reset) applies it.
 */
export const MIN_PASSWORD_LENGTH = 12;
export const MAX_PASSWORD_LENGTH = 1000;

const COMMON = new Set(COMMON_PASSWORD_WORDS);
const SEQUENCES = [
  "abcdefghijklmnopqrstuvwxyz",
  "01234567890123456789",
  "qwertyuiopasdfghjklzxcvbnm",
  "qwertzuiopasdfghjklyxcvbnm",
  "azertyuiopqsdfghjklmwxcvbn",
  "1qaz2wsx3edc4rfv5tgb6yhn7ujm8ik9ol0p",
];
const LEET: Record<string, string> = { "0": "o", "1": "i", "3": "e", "4": "a", "5": "s", "7": "t", "@": "a", $: "s", "!": "i" };

/** The shortest unit the text repeats ("abcabcabc" → "abc"); the text itself when it does not. */
function repeatedUnit(s: string): string {
  for (let n = 1; n <= s.length / 2; n++) if (s.length % n === 0 && s.slice(0, n).repeat(s.length / n) === s) return s.slice(0, n);
  return s;
}

function isSequence(s: string): boolean {
  if (s.length < 4) return false;
  return SEQUENCES.some((seq) => {
    const both = seq + seq;
    const reversed = [...both].reverse().join("");
    return both.includes(s) || reversed.includes(s);
  });
}

const strip = (s: string) => s.replace(/^[^\p{L}]+|[^\p{L}]+$/gu, "");

/** The word under the decoration: lower case, digits and symbols stripped from both ends, then substitutions undone. */
function coreOf(password: string): string {
  const stripped = strip(password.toLowerCase());
  return strip([...stripped].map((c) => LEET[c] ?? c).join(""));
}

/** Why this password may not be used, or null when it may. `context`: the account's email and name, refused as passwords too. */
export function passwordProblem(password: string, context: { email?: string; name?: string } = {}): string | null {
  const length = [...password].length;
  if (length < MIN_PASSWORD_LENGTH) return `a password has at least ${MIN_PASSWORD_LENGTH} characters`;
  if (length > MAX_PASSWORD_LENGTH) return `a password has at most ${MAX_PASSWORD_LENGTH} characters`;
  const lower = password.toLowerCase();
  const compact = lower.replace(/\s+/g, "");
  if (compact.length === 0 || new Set(compact).size < 4 || repeatedUnit(compact).length <= compact.length / 3) {
    return "this password is mostly one character or a short repeated pattern; use a longer phrase";
  }
  if (isSequence(compact) || isSequence(compact.replace(/[^a-z0-9]/g, ""))) return "this password is a keyboard or alphabet sequence; use a longer phrase";
  const core = coreOf(password);
  const word = repeatedUnit(core);
  if (COMMON.has(word) || COMMON.has(core) || COMMON.has(lower)) {
    return "this password is on the list of the most common ones attackers try first; use a longer phrase of your own";
  }
  const personal = [context.email?.split("@")[0], context.name]
    .map((s) => s?.toLowerCase().replace(/[^a-z0-9]/g, ""))
    .filter((s): s is string => !!s && s.length >= 3);
  if (personal.some((p) => word === p || core === p)) return "this password is your email or name; use something else";
  return null;
}

/** The shape of a new password (400 when not a string of a sane length); the policy itself is 422 (refuseWeakPassword). */
export const ZNewPassword = z
  .string()
  .min(MIN_PASSWORD_LENGTH, `password must have at least ${MIN_PASSWORD_LENGTH} characters`)
  .max(MAX_PASSWORD_LENGTH, `password must have at most ${MAX_PASSWORD_LENGTH} characters`);

/** 422 naming `path` when the password breaks the policy. */
export function refuseWeakPassword(password: string, context: { email?: string; name?: string }, path = "password"): void {
  const problem = passwordProblem(password, context);
  if (problem) throw invalid([{ path, message: problem }], "the password is too easy to guess");
}
