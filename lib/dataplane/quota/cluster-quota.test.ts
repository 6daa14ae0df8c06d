import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTestDatabase, type TTestDatabase } from "@/test/support/database";
import { startTcpProxy } from "@/test/support/tcp-proxy";
import type { TQuotaView } from "../../../router-core/index";
import { createClusterQuota, pruneEndedQuotaWindows } from "./cluster-quota";

/**
 * Three instances' quota counters on one real database, each on its own pool: what they admit
 * together stays within the limit, a new window starts afresh, and an instance without Postgres
 * spends its share of the limit.
 */
let db: TTestDatabase;
const pools: pg.Pool[] = [];
const HOUR = { unit: "requests", windowSeconds: 3_600, limit: 100 } as const;

function pool(url = db.url): pg.Pool {
  const p = new pg.Pool({ connectionString: url, max: 2, connectionTimeoutMillis: 1_000 });
  p.on("error", () => {});
  p.on("connect", (c) => c.on("error", () => {}));
  pools.push(p);
  return p;
}

function instance(id: string, clock: { t: number }, p = pool()) {
  let views: Record<string, TQuotaView> = {};
  const quota = createClusterQuota({ pool: p, instanceId: id, now: () => clock.t, publish: (v) => (views = v) });
  return {
    quota,
    /** What decide would do: route to the provider only while its quota gate passes, and spend a call. */
    tryCall(provider: string): boolean {
      if (views[provider]?.remainingMinute === 0) return false;
      quota.consume(provider);
      return true;
    },
    view: (provider: string) => views[provider],
  };
}

const tick = () => new Promise((r) => setTimeout(r, 2));

beforeAll(async () => {
  db = await createTestDatabase();
});

afterAll(async () => {
  await Promise.all(pools.map((p) => p.end().catch(() => {})));
  await db?.drop();
});

describe("a provider's call quota across instances", () => {
  it("admits at most the limit across three instances taking calls in turn, and within a few blocks of it", async () => {
    const clock = { t: Date.UTC(2026, 11, 4, 10, 0, 0) };
    const cluster = ["a", "b", "c"].map((id) => instance(id, clock));
    for (const i of cluster) i.quota.configure(new Map([["provider_A", [HOUR]]]));
    let admitted = 0;
    for (let n = 0; n < 1_500; n++) {
      if (cluster[n % 3]!.tryCall("provider_A")) admitted++;
      if (n % 5 === 0) await tick();
    }
    const used = (await pools[0]!.query("select used::int as used from provider_quota_window where provider_key = 'provider_A'")).rows[0].used;
    console.log(`cluster quota: 100 per window, 3 instances: admitted ${admitted}, granted ${used}`);
    expect(used).toBeLessThanOrEqual(100);
    expect(admitted).toBeLessThanOrEqual(100);
    // Blocks of 100 / (8 × 3) = 4: at most one unspent block per instance, plus the one being leased.
    expect(admitted).toBeGreaterThanOrEqual(100 - 3 * 2 * 4);
    expect(cluster[0]!.view("provider_A")).toMatchObject({ remainingMinute: 0, window: "100 requests per 3600 s" });
    for (const i of cluster) i.quota.close();
  });

  it("starts the next window afresh", async () => {
    const clock = { t: Date.UTC(2026, 11, 4, 11, 0, 0) };
    const one = instance("solo", clock);
    one.quota.configure(new Map([["provider_B", [{ unit: "requests" as const, windowSeconds: 60, limit: 5 }]]]));
    let admitted = 0;
    for (let n = 0; n < 50; n++) {
      if (one.tryCall("provider_B")) admitted++;
      await tick();
    }
    expect(admitted).toBe(5);
    clock.t += 60_000;
    one.quota.configure(new Map([["provider_B", [{ unit: "requests" as const, windowSeconds: 60, limit: 5 }]]]));
    await tick();
    await tick();
    let next = 0;
    for (let n = 0; n < 50; n++) {
      if (one.tryCall("provider_B")) next++;
      await tick();
    }
    expect(next).toBe(5);
    one.quota.close();
  });

  it("spends a call reported later only in the window it was made in", async () => {
    const clock = { t: Date.UTC(2026, 11, 4, 13, 30, 0) };
    const one = instance("reported", clock);
    one.quota.configure(new Map([["provider_D", [{ unit: "requests" as const, windowSeconds: 3_600, limit: 10 }]]]));
    for (let n = 0; n < 50 && one.quota.status().leases === 0; n++) await tick();
    const spent = () => one.quota.status().windows.find((w) => w.provider === "provider_D")!.spent;
    one.quota.consume("provider_D", clock.t - 60_000);
    one.quota.consume("provider_D", clock.t);
    expect(spent()).toBe(2);
    // Made in the window before (13:00 starts this one): its count is gone with that window.
    one.quota.consume("provider_D", Date.UTC(2026, 11, 4, 12, 59, 59));
    expect(spent()).toBe(2);
    one.quota.close();
  });

  it("prunes windows that ended a day ago, and only those", async () => {
    const insert = (provider: string, start: string, seconds: number) =>
      pools[0]!.query(
        "insert into provider_quota_window (provider_key, unit, window_seconds, window_start, quota_limit, used) values ($1, 'requests', $2, now() - $3::interval, 10, 0)",
        [provider, seconds, start],
      );
    await insert("prune_old", "3 days", 3_600);
    await insert("prune_day_window", "30 hours", 86_400);
    await insert("prune_recent", "2 hours", 3_600);
    expect(await pruneEndedQuotaWindows(pools[0]!)).toBeGreaterThanOrEqual(1);
    const left = (await pools[0]!.query("select provider_key from provider_quota_window where provider_key like 'prune_%' order by 1")).rows.map(
      (r) => r.provider_key,
    );
    // The day-long window started 30 h ago ended 6 h ago: kept, like the hour that ended an hour ago.
    expect(left).toEqual(["prune_day_window", "prune_recent"]);
  });

  it("spends limit / instances without Postgres, says so, and leases again once it is back", async () => {
    const clock = { t: Date.UTC(2026, 11, 4, 12, 0, 0) };
    const u = new URL(db.url);
    const proxy = await startTcpProxy({ host: u.hostname, port: Number(u.port || 5432) });
    const proxied = new URL(db.url);
    proxied.hostname = "127.0.0.1";
    proxied.port = String(proxy.port);
    const others = ["x", "y"].map((id) => instance(id, clock));
    const cut = instance("cut", clock, pool(proxied.toString()));
    const quotas = new Map([["provider_C", [{ unit: "requests" as const, windowSeconds: 3_600, limit: 90 }]]]);
    for (const i of others) i.quota.configure(quotas);
    const holders = async () =>
      (await pools[0]!.query("select coalesce(max(cardinality(holders)), 0) as n from provider_quota_window where provider_key = 'provider_C'")).rows[0].n;
    for (let n = 0; n < 2_500 && (await holders()) < 2; n++) await tick();
    // Its lease comes after the others': it learns that the window has three holders.
    cut.quota.configure(quotas);
    for (let n = 0; n < 2_500 && cut.quota.status().leases === 0; n++) await tick();
    proxy.cut();
    clock.t += 3_600_000;
    cut.quota.configure(quotas);
    let admitted = 0;
    for (let n = 0; n < 200; n++) {
      if (cut.tryCall("provider_C")) admitted++;
      if (n % 5 === 0) await tick();
    }
    expect(cut.quota.status().shared).toBe(false);
    expect(admitted).toBe(30);
    proxy.restore();
    clock.t += 3_600_000;
    cut.quota.configure(quotas);
    for (let n = 0; n < 50 && !cut.quota.status().shared; n++) await tick();
    expect(cut.quota.status().shared).toBe(true);
    for (const i of [...others, cut]) i.quota.close();
    await proxy.close();
  });
});
