import { hash, verify } from "@node-rs/argon2";

/** OWASP's minimum for argon2id is m=19 MiB, t=2, p=1; this is a little above it. */
const OPTIONS = { memoryCost: 19_456, timeCost: 3, parallelism: 1 } as const;

export const MIN_PASSWORD_LENGTH = 12;

export function hashPassword(password: string): Promise<string> {
  return hash(password, OPTIONS);
}

export async function verifyPassword(passwordHash: string, password: string): Promise<boolean> {
  try {
    return await verify(passwordHash, password);
  } catch {
    return false;
  }
}

/**
 * Hash of a throwaway password, verified against when the email is unknown, so a login
 * takes as long for a missing account as for a wrong password.
 */
let dummyHash: Promise<string> | null = null;
export function dummyPasswordHash(): Promise<string> {
  dummyHash ??= hashPassword("switchyard-timing-equaliser");
  return dummyHash;
}
