import { createHash, randomBytes } from "node:crypto";

export function randomToken(bytes = 32): string {
  return randomBytes(bytes).toString("base64url");
}

/** Session tokens and API keys are 256-bit random, so sha256 is enough (no salt, no KDF). */
export function sha256Hex(value: string): string {
  return createHash("sha256").update(value).digest("hex");
}
