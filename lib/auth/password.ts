import { availableParallelism } from "node:os";
import { hash, verify } from "@node-rs/argon2";
import { ContractError } from "../errors";
import { processSlot } from "../runtime";

/** OWASP's minimum for argon2id is m=19 MiB, t=2, p=1; this is a little above it. */
const OPTIONS = { memoryCost: 19_456, timeCost: 3, parallelism: 1 } as const;

export { MIN_PASSWORD_LENGTH } from "./password-policy";

export function hashPassword(password: string): Promise<string> {
  return hash(password, OPTIONS);
}

/**
 * Argon2 runs on libuv's thread pool (4 threads) with 19 MiB each: unbounded, a burst of
 * sign-ins slows every one of them and starves the pool's other users. At most one verification per core runs; a bounded queue
 * waits behind them, and past it a sign-in is refused with 429 before touching the database.
 */
type TSlots = { running: number; waiting: (() => void)[] };
const slots = processSlot<TSlots>("argon2", () => ({ running: 0, waiting: [] }));
const MAX_RUNNING = Math.max(1, Math.min(4, availableParallelism()));
const MAX_WAITING = 64;

/** Holds one of the argon2 slots while fn runs, waiting in line for one when all are taken. */
export async function withPasswordSlot<T>(fn: () => Promise<T>): Promise<T> {
  if (slots.running >= MAX_RUNNING) {
    if (slots.waiting.length >= MAX_WAITING)
      throw new ContractError("sign_in_busy", "too many sign-ins at once; try again in a moment", [], { retryAfterSeconds: 1 });
    await new Promise<void>((resolve) => slots.waiting.push(resolve));
  } else slots.running += 1;
  try {
    return await fn();
  } finally {
    // The slot passes straight to the next in line, so running never exceeds the bound.
    const next = slots.waiting.shift();
    if (next) next();
    else slots.running -= 1;
  }
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
