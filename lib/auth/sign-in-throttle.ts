import { isIPv6 } from "node:net";
import { ContractError } from "../errors";
import { processSlot } from "../runtime";
import type { PrismaClient } from "../db";
import { createSharedBackoff, type TSharedBackoff, type TSharedBackoffView } from "./shared-sign-in-backoff";

/**
 * Growing delays after failed sign-ins, per client address and per account
 * (lib/controlplane/README.md, "Sign-in throttle"). Checked before any database read or argon2
 * run, so a refused attempt costs microseconds. Attempts that pass also consult the counts every
 * instance shares in Postgres (shared-sign-in-backoff.ts), so N instances do not give N times
 * the attempts.
 */
export type TBackoff = {
  /** Failures allowed before the first delay. */
  free: number;
  baseMs: number;
  /** The longest a key is blocked for after one failure, however many came before. */
  capMs: number;
  /** A key with no attempt for this long starts over. */
  forgetMs: number;
};

/**
 * The address is the stricter of the two: one address reaches its longer delays long before
 * it can push an account into its own, so an attacker at one address cannot keep a user out.
 */
export const ADDRESS_BACKOFF: TBackoff = { free: 5, baseMs: 1_000, capMs: 15 * 60_000, forgetMs: 30 * 60_000 };
export const ACCOUNT_BACKOFF: TBackoff = { free: 10, baseMs: 1_000, capMs: 5 * 60_000, forgetMs: 15 * 60_000 };

/** Keys remembered per kind; past it the least recently used is forgotten (a flood of random emails must not grow the heap). */
const MAX_KEYS = 50_000;

export function backoffMs(policy: TBackoff, failures: number): number {
  return failures <= policy.free ? 0 : Math.min(policy.capMs, policy.baseMs * 2 ** (failures - policy.free - 1));
}

/** pending: attempts started and not yet decided, counted as failures while they run. */
type TEntry = { failures: number; pending: number; lastAt: number; refused: number };

class KeyedBackoff {
  private readonly entries = new Map<string, TEntry>();
  constructor(private readonly policy: TBackoff) {}

  private delayAfter(e: TEntry): number {
    return backoffMs(this.policy, e.failures + e.pending);
  }

  private live(key: string, now: number): TEntry | undefined {
    const e = this.entries.get(key);
    if (e && e.pending === 0 && now >= e.lastAt + this.delayAfter(e) && now - e.lastAt > this.policy.forgetMs) {
      this.entries.delete(key);
      return undefined;
    }
    return e;
  }

  waitMs(key: string, now: number): number {
    const e = this.live(key, now);
    return e ? Math.max(0, e.lastAt + this.delayAfter(e) - now) : 0;
  }

  refuse(key: string, now: number): void {
    const e = this.live(key, now);
    if (e) e.refused += 1;
  }

  /**
   * Counts an attempt as a failure from its start, so concurrent attempts cannot all pass the
   * check. Returns the previous lastAt, for undo().
   */
  start(key: string, now: number): number {
    const e = this.live(key, now) ?? { failures: 0, pending: 0, lastAt: now, refused: 0 };
    const previous = e.lastAt;
    e.pending += 1;
    e.lastAt = now;
    // Re-inserting keeps the map in least-recently-used order for the eviction below.
    this.entries.delete(key);
    this.entries.set(key, e);
    if (this.entries.size > MAX_KEYS) this.entries.delete(this.entries.keys().next().value!);
    return previous;
  }

  /** The started attempt failed: returns the delay it earned. */
  fail(key: string): number {
    const e = this.entries.get(key);
    if (!e) return 0;
    e.pending = Math.max(0, e.pending - 1);
    e.failures += 1;
    return backoffMs(this.policy, e.failures);
  }

  /** The started attempt did not fail after all: as if it had not been made. */
  undo(key: string, startedAt: number, previousLastAt: number): void {
    const e = this.entries.get(key);
    if (!e) return;
    e.pending = Math.max(0, e.pending - 1);
    if (e.lastAt === startedAt) e.lastAt = previousLastAt;
    if (e.failures === 0 && e.pending === 0 && e.refused === 0) this.entries.delete(key);
  }

  reset(key: string): void {
    this.entries.delete(key);
  }

  /** Attempts refused since the last call, for the next audit entry of this key. */
  takeRefused(key: string): number {
    const e = this.entries.get(key);
    const n = e?.refused ?? 0;
    if (e) e.refused = 0;
    return n;
  }
}

/**
 * Addresses an account recently signed in from. The account's own delay does not apply to
 * them (their address's delay still does), so an attacker elsewhere who keeps the account
 * throttled does not keep its owner out from where they usually sign in.
 */
const KNOWN_ADDRESSES_PER_ACCOUNT = 8;
const KNOWN_ADDRESS_TTL_MS = 30 * 24 * 3600_000;

class KnownAddresses {
  private readonly entries = new Map<string, Map<string, number>>();

  has(account: string, address: string, now: number): boolean {
    const at = this.entries.get(account)?.get(address);
    return at !== undefined && now - at < KNOWN_ADDRESS_TTL_MS;
  }

  add(account: string, address: string, now: number): void {
    const known = this.entries.get(account) ?? new Map<string, number>();
    known.delete(address);
    known.set(address, now);
    if (known.size > KNOWN_ADDRESSES_PER_ACCOUNT) known.delete(known.keys().next().value!);
    this.entries.delete(account);
    this.entries.set(account, known);
    if (this.entries.size > MAX_KEYS) this.entries.delete(this.entries.keys().next().value!);
  }
}

/** What the attempt's audit entry records about throttling (nothing when there is nothing to say). */
export type TThrottleNote = { refusedWhileThrottled?: number; blockedForSeconds?: number };

export type TSignInAttempt = {
  /**
   * Asks the counts every instance shares (when the throttle has them): refuses with 429 like
   * begin() when the cluster's failures impose a wait this process had not seen.
   */
  confirm(): Promise<void>;
  /** Right password: the account starts over, the address gets its attempt back. */
  succeeded(): TThrottleNote;
  failed(): TThrottleNote;
  /** The attempt ended in an error before its outcome was known: as if it had not happened. */
  abandoned(): void;
};

export type TSignInThrottle = {
  begin(account: string, address: string | null): TSignInAttempt;
  /** Waits for the shared writes started so far (tests, shutdown). */
  settled(): Promise<void>;
};

/** The wait a shared count imposes now, under a policy; 0 once the key was quiet past its forget period. */
function sharedWait(policy: TBackoff, entry: TSharedBackoffView["address"], now: number): number {
  if (!entry || now - entry.lastAt > policy.forgetMs) return 0;
  return Math.max(0, entry.lastAt + backoffMs(policy, entry.failures) - now);
}

function refusal(waitMs: number): ContractError {
  const seconds = Math.ceil(waitMs / 1000);
  return new ContractError("throttled", `too many failed sign-ins; try again in ${seconds} s`, [], { retryAfterSeconds: seconds });
}

/**
 * An IPv6 client usually holds a whole /64, so that is one address here; an IPv4-mapped
 * IPv6 address is its IPv4 address.
 */
export function addressKey(ip: string | null): string {
  if (!ip) return "unknown";
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(ip);
  if (mapped) return mapped[1]!;
  if (!isIPv6(ip)) return ip;
  const [head = "", tail = ""] = ip.split("::");
  const left = head ? head.split(":") : [];
  const right = tail ? tail.split(":") : [];
  const groups = ip.includes("::") ? [...left, ...Array<string>(8 - left.length - right.length).fill("0"), ...right] : left;
  return `${groups
    .slice(0, 4)
    .map((g) => parseInt(g, 16).toString(16))
    .join(":")}::/64`;
}

export type TSignInThrottleOptions = { address?: TBackoff; account?: TBackoff; now?: () => number; shared?: TSharedBackoff };

export function createSignInThrottle(opts: TSignInThrottleOptions = {}): TSignInThrottle {
  const policies = { address: opts.address ?? ADDRESS_BACKOFF, account: opts.account ?? ACCOUNT_BACKOFF };
  const addresses = new KeyedBackoff(policies.address);
  const accounts = new KeyedBackoff(policies.account);
  const known = new KnownAddresses();
  const now = opts.now ?? Date.now;
  const writes = new Set<Promise<void>>();
  const track = (p: Promise<void>) => {
    writes.add(p);
    void p.finally(() => writes.delete(p));
  };

  /** Counts a refusal against the key that blocked, so the audit's counts add up. */
  function refuse(account: string, address: string, t: number, addressWait: number, accountWait: number): never {
    if (addressWait >= accountWait) addresses.refuse(address, t);
    else accounts.refuse(account, t);
    throw refusal(Math.max(addressWait, accountWait));
  }

  function begin(accountRaw: string, ip: string | null): TSignInAttempt {
    const account = accountRaw.trim().toLowerCase();
    const address = addressKey(ip);
    const t = now();
    const addressWait = addresses.waitMs(address, t);
    const accountWait = known.has(account, address, t) ? 0 : accounts.waitMs(account, t);
    if (addressWait > 0 || accountWait > 0) refuse(account, address, t, addressWait, accountWait);
    const [addressBefore, accountBefore] = [addresses.start(address, t), accounts.start(account, t)];
    let open = true;
    const refused = () => {
      const n = addresses.takeRefused(address) + accounts.takeRefused(account);
      return n > 0 ? { refusedWhileThrottled: n } : {};
    };
    const abandoned = () => {
      if (!open) return;
      open = false;
      addresses.undo(address, t, addressBefore);
      accounts.undo(account, t, accountBefore);
    };
    return {
      async confirm() {
        if (!opts.shared || !open) return;
        const view = await opts.shared.view(account, address, t);
        if (!view) return;
        const sharedAddress = sharedWait(policies.address, view.address, t);
        const sharedAccount = view.known || known.has(account, address, t) ? 0 : sharedWait(policies.account, view.account, t);
        if (sharedAddress === 0 && sharedAccount === 0) return;
        abandoned();
        refuse(account, address, t, sharedAddress, sharedAccount);
      },
      succeeded() {
        if (!open) return {};
        open = false;
        addresses.undo(address, t, addressBefore);
        const note = refused();
        accounts.reset(account);
        known.add(account, address, now());
        if (opts.shared) track(opts.shared.succeeded(account, address, now()));
        return note;
      },
      failed() {
        if (!open) return {};
        open = false;
        const blocked = Math.max(addresses.fail(address), accounts.fail(account));
        if (opts.shared) track(opts.shared.failed(account, address, t, { address: policies.address.forgetMs, account: policies.account.forgetMs }));
        return { ...refused(), ...(blocked > 0 ? { blockedForSeconds: Math.ceil(blocked / 1000) } : {}) };
      },
      abandoned,
    };
  }

  return {
    begin,
    async settled() {
      await Promise.all([...writes]);
    },
  };
}

/**
 * One throttle per process, sharing its counts through `prisma`'s database: Next may load this
 * module more than once (route handlers, actions), so it lives in a process slot.
 */
export function signInThrottle(prisma: PrismaClient): TSignInThrottle {
  return processSlot("signInThrottle", () => {
    // Once a minute at most: an unreachable database must not turn a sign-in flood into a log flood.
    let warnedAt = -Infinity;
    const warn = (err: unknown) => {
      if (Date.now() - warnedAt < 60_000) return;
      warnedAt = Date.now();
      console.warn(
        `sign-in throttle: shared counts unavailable, this instance's own apply (${err instanceof Error ? err.message.split("\n").at(-1) : String(err)})`,
      );
    };
    return createSignInThrottle({ shared: createSharedBackoff(prisma, warn) });
  });
}
