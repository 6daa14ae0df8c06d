import type { PrismaClient } from "../db";

/** What the cluster has recorded for one attempt's address and account. */
export type TSharedBackoffView = {
  address: { failures: number; lastAt: number } | null;
  account: { failures: number; lastAt: number } | null;
  /** The account signed in from this address lately. */
  known: boolean;
};

/**
 * The sign-in throttle's counts in Postgres, so every instance sees every instance's failures.
 * Only attempts that got past the in-memory check read it (a refused flood never touches the
 * database), and writes are one statement each. Every method fails soft: when Postgres is
 * unreachable the throttle falls back to its own process's counts.
 */
export type TSharedBackoff = {
  view(account: string, address: string, now: number): Promise<TSharedBackoffView | null>;
  failed(account: string, address: string, at: number, forgetMs: { address: number; account: number }): Promise<void>;
  succeeded(account: string, address: string, at: number): Promise<void>;
};

/** Old rows are swept every this many failures (a flood of random emails must not grow the table). */
const SWEEP_EVERY = 256;
const KEEP_MS = 24 * 3600_000;
const KNOWN_TTL_MS = 30 * 24 * 3600_000;

export function createSharedBackoff(prisma: PrismaClient, onError: (err: unknown) => void = () => {}): TSharedBackoff {
  let failures = 0;
  const soft = async <T>(run: () => Promise<T>, fallback: T): Promise<T> => {
    try {
      return await run();
    } catch (err) {
      onError(err);
      return fallback;
    }
  };
  return {
    view: (account, address, now) =>
      soft(async () => {
        const rows = await prisma.$queryRaw<Array<{ kind: string; failures: number; last_ms: number }>>`
          select kind, failures, (extract(epoch from last_at) * 1000)::float8 as last_ms from sign_in_backoff
           where (kind = 'address' and key = ${address}) or (kind = 'account' and key = ${account})
          union all
          select 'known', 0, (extract(epoch from at) * 1000)::float8 from sign_in_known_address where account = ${account} and address = ${address}`;
        const of = (kind: string) => {
          const r = rows.find((x) => x.kind === kind);
          return r ? { failures: r.failures, lastAt: r.last_ms } : null;
        };
        const known = of("known");
        return { address: of("address"), account: of("account"), known: known !== null && now - known.lastAt < KNOWN_TTL_MS };
      }, null),
    failed: (account, address, at, forgetMs) =>
      soft(async () => {
        const now = new Date(at);
        // A key quiet for longer than its forget period starts over, as the in-memory count does.
        await prisma.$executeRaw`
          insert into sign_in_backoff (kind, key, failures, last_at)
          values ('address', ${address}, 1, ${now}), ('account', ${account}, 1, ${now})
          on conflict (kind, key) do update set
            failures = case
              when sign_in_backoff.last_at < excluded.last_at - make_interval(secs => case when excluded.kind = 'address' then ${forgetMs.address / 1000}::float8 else ${forgetMs.account / 1000}::float8 end)
              then 1 else sign_in_backoff.failures + 1 end,
            last_at = greatest(sign_in_backoff.last_at, excluded.last_at)`;
        if (++failures % SWEEP_EVERY === 0) {
          await prisma.$executeRaw`delete from sign_in_backoff where last_at < ${new Date(at - KEEP_MS)}`;
          await prisma.$executeRaw`delete from sign_in_known_address where at < ${new Date(at - KNOWN_TTL_MS)}`;
        }
      }, undefined),
    succeeded: (account, address, at) =>
      soft(async () => {
        await prisma.$executeRaw`delete from sign_in_backoff where kind = 'account' and key = ${account}`;
        await prisma.$executeRaw`insert into sign_in_known_address (account, address, at) values (${account}, ${address}, ${new Date(at)})
                                 on conflict (account, address) do update set at = excluded.at`;
      }, undefined),
  };
}
