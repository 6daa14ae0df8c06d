/**
 * State that must exist once per process. Next bundles its own copy of every lib/ module for its
 * route handlers, server actions and pages, beside the copy server.ts loads, so module-level state
 * would exist once per bundle; what they must share lives on globalThis, and only through this
 * module, so the list below is the whole of it. Everything else is passed explicitly.
 */
export type TProcessSlotName =
  /** lib/db/client.ts: one Prisma client for server.ts and Next's handlers. */
  | "prisma"
  /** lib/auth/verify-api-key.ts: a revocation in a Next handler must reach the fast path's cache. */
  | "apiKeyCache"
  /** lib/auth/password.ts: one bound on concurrent argon2 hashes for every sign-in path. */
  | "argon2"
  /** lib/auth/sign-in-throttle.ts: failed sign-ins counted across route handlers and actions. */
  | "signInThrottle"
  /** lib/replay/replay-runner.ts: the replay queue, started by one bundle and polled by another. */
  | "replays"
  /** lib/console/evaluation/what-if-jobs.ts: why a range had nothing to replay, for the page's polls. */
  | "whatIfNotes"
  /** lib/console/gateway/gateway-runtime.ts: published by the boot, read by the console's pages. */
  | "gatewayRuntime"
  /** lib/decision-store/index.ts: the ClickHouse client the console's decision reads use in ClickHouse mode. */
  | "decisionStore";

const slots: Partial<Record<TProcessSlotName, unknown>> = ((
  globalThis as { __switchyardSlots?: Partial<Record<TProcessSlotName, unknown>> }
).__switchyardSlots ??= {});

/** The slot's value, created by `create` on first use. Each slot has one owner module, which fixes its type. */
export function processSlot<T>(name: TProcessSlotName, create: () => T): T {
  if (!(name in slots)) slots[name] = create();
  return slots[name] as T;
}

/** The slot's value, or undefined when nothing was stored. */
export function readProcessSlot<T>(name: TProcessSlotName): T | undefined {
  return slots[name] as T | undefined;
}

/** Stores a value; undefined empties the slot. */
export function writeProcessSlot<T>(name: TProcessSlotName, value: T | undefined): void {
  if (value === undefined) delete slots[name];
  else slots[name] = value;
}
