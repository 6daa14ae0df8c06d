import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTestDatabase, type TTestDatabase } from "@/test/support/database";
import { createRoutingState } from "../dataplane/routing-state";
import { createQuotaFeed } from "./quota-feed";
import { createThrottleSync } from "./throttle-sync";

let db: TTestDatabase;
let pool: pg.Pool;

beforeAll(async () => {
  db = await createTestDatabase();
  pool = new pg.Pool({ connectionString: db.url, max: 4 });
  // Dropping the database at the end terminates clients still closing: not a test failure.
  pool.on("error", () => {});
  pool.on("connect", (c) => c.on("error", () => {}));
});

afterAll(async () => {
  await pool?.end();
  await db?.drop();
});

function instance(id: string, clock: { t: number }, p: pg.Pool = pool) {
  const feed = createQuotaFeed(createRoutingState(), () => clock.t);
  const sync = createThrottleSync({ pool: p, feed, instanceId: id, intervalMs: 3_600_000, now: () => clock.t });
  return { feed, sync };
}

describe("throttles shared between instances", () => {
  it("a 429 seen by one instance makes the others skip the provider until its reset", async () => {
    const clock = { t: Date.now() };
    const [a, b, c] = [instance("a", clock), instance("b", clock), instance("c", clock)];
    a.feed.observe("provider_A", { exhausted: true, retryAfterSeconds: 30 });
    expect(a.feed.throttled("provider_A")).toBe(true);
    // Before any sync only the instance that was told knows.
    expect(b.feed.throttled("provider_A")).toBe(false);
    await a.sync.sync();
    await Promise.all([b.sync.sync(), c.sync.sync()]);
    expect(b.feed.throttled("provider_A")).toBe(true);
    expect(c.feed.throttled("provider_A")).toBe(true);
    expect(b.sync.status().shared).toBe(true);

    // The reset one instance was told holds for all: over once it passes.
    clock.t += 31_000;
    expect(b.feed.throttled("provider_A")).toBe(false);
    await b.sync.sync();
    expect(b.feed.throttled("provider_A")).toBe(false);
    for (const i of [a, b, c]) {
      i.feed.close();
      await i.sync.close();
    }
  });

  it("the later reset wins; a throttle learned while Postgres is unreachable is shared once it is back", async () => {
    const clock = { t: Date.now() };
    const broken = new pg.Pool({ connectionString: "postgresql://nobody@127.0.0.1:1/none", connectionTimeoutMillis: 500 });
    broken.on("error", () => {});
    const offline = createQuotaFeed(createRoutingState(), () => clock.t);
    const lost = createThrottleSync({ pool: broken, feed: offline, instanceId: "offline", intervalMs: 3_600_000, now: () => clock.t });
    offline.observe("provider_B", { exhausted: true, retryAfterSeconds: 60 });
    await lost.sync();
    expect(lost.status().shared).toBe(false);
    expect(offline.throttled("provider_B")).toBe(true);
    await lost.close();
    await broken.end();

    // The same feed's next sync reaches Postgres: the throttle kept from the failed write is written.
    const back = createThrottleSync({ pool, feed: offline, instanceId: "offline", intervalMs: 3_600_000, now: () => clock.t });
    const other = instance("other", clock);
    other.feed.observe("provider_B", { exhausted: true, retryAfterSeconds: 10 });
    await other.sync.sync();
    await back.sync();
    await other.sync.sync();
    clock.t += 20_000;
    // Ten seconds from the other's own 429 have passed; the offline instance's sixty have not.
    expect(other.feed.throttled("provider_B")).toBe(true);
    other.feed.close();
    offline.close();
    await other.sync.close();
    await back.close();
  });
});
