import { randomBytes } from "node:crypto";
import { randomToken } from "./tokens";

/**
 * `sy_<prefix>_<secret>`: the hex prefix is stored in clear so operators can tell keys apart
 * in lists and logs; the secret (256 bits) exists only in the caller's hands.
 */
export function generateApiKey(): { key: string; prefix: string } {
  const prefix = randomBytes(4).toString("hex");
  return { key: `sy_${prefix}_${randomToken(32)}`, prefix };
}
