import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTestDatabase, type TTestDatabase } from "@/test/support/database";
import { createBudgetGuard } from "./budget";
import type { TOperationLimits } from "./config";
import { createSpendSync } from "./spend-sync";
import { createPool } from "../dataplane/pool";

let db: TTestDatabase;
let pool: pg.Pool;

beforeAll(async () => {
  db = await createTestDatabase();
  // A client the database drop ends (57P01) must not crash the run: createPool listens on every client.
  pool = createPool({ connectionString: db.url, max: 4 });
});

afterAll(async () => {
  await pool?.end();
  await db?.drop();
});

const T0 = Date.UTC(2034, 4, 2, 9, 30, 5);
const limits = (perMinute: number | null, perDay: number | null = null) =>
  ({ costCapPerMinute: perMinute, costCapPerDay: perDay, maxFallbackSeconds: null }) as TOperationLimits;

function instance(id: string, clock: { t: number }, p: pg.Pool = pool) {
  const guard = createBudgetGuard(() => clock.t);
  const sync = createSpendSync({ pool: p, guard, instanceId: id, intervalMs: 3_600_000, now: () => clock.t });
  return { guard, sync };
}

describe("spend shared between instances", () => {
  it("a cap is reached by the cluster's spend, not each instance's", async () => {
    const clock = { t: T0 };
    const a = instance("a", clock);
    const b = instance("b", clock);
    a.guard.charge("LLM_CHAT", 6);
    b.guard.charge("LLM_CHAT", 5);
    // Before any sync each instance knows only its own spend: under the cap of 10.
    expect(a.guard.costBreach("LLM_CHAT", limits(10))).toBeNull();
    expect(b.guard.costBreach("LLM_CHAT", limits(10))).toBeNull();

    await a.sync.sync();
    await b.sync.sync();
    await a.sync.sync();
    for (const g of [a.guard, b.guard]) {
      const breach = g.costBreach("LLM_CHAT", limits(10));
      expect(breach?.kind).toBe("cost_cap_minute");
      expect(breach?.detail).toMatch(/11 \(all instances\)/);
      expect(g.snapshot("LLM_CHAT")).toMatchObject({ spentMinute: 11, spentDay: 11 });
    }
    expect(a.guard.snapshot("LLM_CHAT")).toMatchObject({ spentMinuteThisInstance: 6 });
    // Nothing is counted twice: the table holds each instance's spend once per window.
    const { rows } = await pool.query("select instance_id, window_kind, amount from gateway_spend where operation_key = 'LLM_CHAT' order by 1, 2");
    expect(rows).toEqual([
      { instance_id: "a", window_kind: "day", amount: 6 },
      { instance_id: "a", window_kind: "minute", amount: 6 },
      { instance_id: "b", window_kind: "day", amount: 5 },
      { instance_id: "b", window_kind: "minute", amount: 5 },
    ]);

    // The next minute starts from zero for the minute cap; the day cap still sees 11.
    clock.t += 60_000;
    await a.sync.sync();
    expect(a.guard.costBreach("LLM_CHAT", limits(10))).toBeNull();
    expect(a.guard.costBreach("LLM_CHAT", limits(null, 11))?.kind).toBe("cost_cap_day");
    await a.sync.close();
    await b.sync.close();
  });

  it("spend made while Postgres is unreachable is kept and shared once it is back", async () => {
    const clock = { t: T0 + 86_400_000 };
    const down = new pg.Pool({ connectionString: "postgres://nobody@127.0.0.1:1/none", connectionTimeoutMillis: 500 });
    down.on("error", () => {});
    const lines: string[] = [];
    const guard = createBudgetGuard(() => clock.t);
    const failing = createSpendSync({ pool: down, guard, instanceId: "c", intervalMs: 3_600_000, now: () => clock.t, log: (l) => lines.push(l) });
    guard.charge("SEND_SMS", 2.5);
    await failing.sync();
    expect(lines.join("\n")).toMatch(/spend sync failed/);
    await failing.close(); // its last sync fails too and gives the spend back
    await down.end().catch(() => {});

    // The same guard, synced through a working pool: the 2.5 spent during the outage arrives.
    const working = createSpendSync({ pool, guard, instanceId: "c", intervalMs: 3_600_000, now: () => clock.t });
    await working.sync();
    const other = instance("d", clock);
    await other.sync.sync();
    expect(other.guard.snapshot("SEND_SMS")).toMatchObject({ spentMinute: 2.5, spentMinuteThisInstance: 0 });
    await working.close();
    await other.sync.close();
  });

  it("an instance restarted under the same id starts from its own rows, not from zero", async () => {
    const clock = { t: T0 + 2 * 86_400_000 };
    const before = instance("fixed-id", clock);
    before.guard.charge("LLM_CHAT", 7);
    await before.sync.close();

    const after = instance("fixed-id", clock);
    expect(after.guard.costBreach("LLM_CHAT", limits(5))).toBeNull();
    await after.sync.sync();
    expect(after.guard.costBreach("LLM_CHAT", limits(5))?.kind).toBe("cost_cap_minute");
    after.guard.charge("LLM_CHAT", 1);
    await after.sync.sync();
    const { rows } = await pool.query("select amount from gateway_spend where instance_id = 'fixed-id' and window_kind = 'minute'");
    expect(rows).toEqual([{ amount: 8 }]);
    expect(after.guard.snapshot("LLM_CHAT")).toMatchObject({ spentMinute: 8, spentMinuteThisInstance: 8 });
    await after.sync.close();
  });
});
