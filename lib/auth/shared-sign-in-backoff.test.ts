import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createPrisma, type PrismaClient } from "../db/client";
import { createTestDatabase, type TTestDatabase } from "../../test/support/database";
import { ContractError } from "../errors/api-errors";
import { createSharedBackoff } from "./shared-sign-in-backoff";
import { ACCOUNT_BACKOFF, ADDRESS_BACKOFF, createSignInThrottle, type TSignInThrottle } from "./sign-in-throttle";

/**
 * Two throttles on one database stand for two instances behind a load balancer: what one counts,
 * the other refuses. Each has its own memory, so anything it refuses came from Postgres.
 */
let db: TTestDatabase;
let prisma: PrismaClient;
let t = 1_800_000_000_000;
const now = () => t;

beforeAll(async () => {
  db = await createTestDatabase();
  prisma = createPrisma(db.url);
});
afterAll(async () => {
  await prisma.$disconnect();
  await db.drop();
});

const instance = (p: PrismaClient = prisma, onError?: (err: unknown) => void): TSignInThrottle =>
  createSignInThrottle({ now, shared: createSharedBackoff(p, onError) });

/** One attempt that fails its password check; the refusal's wait in seconds, or 0 when it went ahead. */
async function failOn(throttle: TSignInThrottle, account: string, ip: string): Promise<number> {
  try {
    const attempt = throttle.begin(account, ip);
    await attempt.confirm();
    attempt.failed();
    await throttle.settled();
    return 0;
  } catch (err) {
    expect(err).toBeInstanceOf(ContractError);
    expect((err as ContractError).status).toBe(429);
    return (err as ContractError).retryAfterSeconds!;
  }
}

describe("sign-in throttle shared across instances", () => {
  it("an address that used its free attempts on one instance is refused on the other", async () => {
    const [a, b] = [instance(), instance()];
    for (let i = 0; i <= ADDRESS_BACKOFF.free; i++) expect(await failOn(i % 2 ? a : b, `user${i}@example.com`, "203.0.113.9")).toBe(0);
    // Neither instance alone has counted six failures; together they have.
    expect(await failOn(instance(), "next@example.com", "203.0.113.9")).toBe(1);
    expect(await failOn(b, "other@example.com", "203.0.113.10")).toBe(0);
  });

  it("an account guessed at from many addresses across instances is throttled everywhere, except where its owner signed in", async () => {
    const [a, b, c] = [instance(), instance(), instance()];
    t += 3_600_000;
    const owner = a.begin("victim@example.com", "198.51.100.1");
    await owner.confirm();
    owner.succeeded();
    await a.settled();
    for (let i = 0; i <= ACCOUNT_BACKOFF.free; i++) expect(await failOn(i % 2 ? a : b, "victim@example.com", `192.0.2.${i + 1}`)).toBe(0);
    expect(await failOn(c, "victim@example.com", "192.0.2.200")).toBeGreaterThan(0);
    // The owner's address is known cluster-wide: instance c never saw the owner sign in.
    const again = c.begin("victim@example.com", "198.51.100.1");
    await expect(again.confirm()).resolves.toBeUndefined();
    again.succeeded();
    await c.settled();
    // A right password resets the account for everyone.
    expect(await failOn(instance(), "victim@example.com", "192.0.2.201")).toBe(0);
  });

  it("forgets a key after its quiet period, in the database too", async () => {
    t += 3_600_000;
    const a = instance();
    for (let i = 0; i <= ADDRESS_BACKOFF.free; i++) await failOn(a, `q${i}@example.com`, "203.0.113.50");
    expect(await failOn(instance(), "q@example.com", "203.0.113.50")).toBeGreaterThan(0);
    t += ADDRESS_BACKOFF.forgetMs + 1;
    expect(await failOn(instance(), "q@example.com", "203.0.113.50")).toBe(0);
    const row = await prisma.signInBackoff.findUniqueOrThrow({ where: { kind_key: { kind: "address", key: "203.0.113.50" } } });
    expect(row.failures).toBe(1);
  });

  it("keeps working on its own counts when the database is unreachable", async () => {
    const gone = createPrisma("postgresql://nobody@127.0.0.1:1/none?connect_timeout=1");
    const errors: unknown[] = [];
    const alone = instance(gone, (err) => errors.push(err));
    t += 3_600_000;
    for (let i = 0; i < ADDRESS_BACKOFF.free; i++) expect(await failOn(alone, `d${i}@example.com`, "203.0.113.77")).toBe(0);
    expect(await failOn(alone, "d@example.com", "203.0.113.77")).toBe(0);
    expect(await failOn(alone, "e@example.com", "203.0.113.77")).toBe(1);
    expect(errors.length).toBeGreaterThan(0); // it did try the database, and went on without it
    await gone.$disconnect();
  });
});
