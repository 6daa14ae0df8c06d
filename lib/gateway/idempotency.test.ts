import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTestDatabase, type TTestDatabase } from "../../test/support/database";
import { createIdempotencyStore, type TStoredAnswer } from "./idempotency";

let db: TTestDatabase;
let poolA: pg.Pool;
let poolB: pg.Pool;

beforeAll(async () => {
  db = await createTestDatabase();
  poolA = new pg.Pool({ connectionString: db.url, max: 3 });
  poolB = new pg.Pool({ connectionString: db.url, max: 3 });
});
afterAll(async () => {
  await poolA.end();
  await poolB.end();
  await db.drop();
});

const answer = (n: number): TStoredAnswer => ({ status: 200, body: JSON.stringify({ n }), headers: {} });
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

describe("idempotency across instances", () => {
  it("runs once when two instances receive the same key at the same time; the other gets the stored answer", async () => {
    const a = createIdempotencyStore({ pool: poolA, ownerId: "a", now: Date.now, log: () => {} });
    const b = createIdempotencyStore({ pool: poolB, ownerId: "b", now: Date.now, log: () => {} });
    let runs = 0;
    const exec = async () => {
      runs++;
      await sleep(120);
      return { answer: answer(runs), definitive: true };
    };
    const results = await Promise.all([
      a.run("OP", "k1", "f", 60_000, 10_000, exec),
      b.run("OP", "k1", "f", 60_000, 10_000, exec),
      a.run("OP", "k1", "f", 60_000, 10_000, exec),
    ]);
    expect(runs).toBe(1);
    expect(results.map((r) => r.answer.body)).toEqual([answer(1).body, answer(1).body, answer(1).body]);
    expect(results.filter((r) => r.replayed)).toHaveLength(2);
  });

  it("lets a repeat take over a key whose holder died, without calling the providers it already called", async () => {
    const dead = createIdempotencyStore({ pool: poolA, ownerId: "dead", now: Date.now, log: () => {} });
    const pending = dead.run("OP", "k2", "f", 60_000, 200, async (lease) => {
      await lease.markAttempt("provider_A");
      // The holder "crashes": it never finishes within its lease.
      await sleep(5_000);
      return { answer: answer(0), definitive: true };
    });
    void pending.catch(() => {});
    await sleep(50);
    const heir = createIdempotencyStore({ pool: poolB, ownerId: "heir", now: Date.now, log: () => {} });
    let seen: readonly string[] = [];
    const r = await heir.run("OP", "k2", "f", 60_000, 10_000, async (lease) => {
      seen = lease.attempted;
      return { answer: answer(2), definitive: true };
    });
    expect(seen).toEqual(["provider_A"]);
    expect(r).toEqual({ answer: answer(2), replayed: false });
  });

  it("does not store a non-definitive answer: a later repeat runs again", async () => {
    const s = createIdempotencyStore({ pool: poolA, ownerId: "a", now: Date.now, log: () => {} });
    let runs = 0;
    const exec = async () => ({ answer: { status: 503, body: "{}", headers: {} }, definitive: ++runs > 1 });
    await s.run("OP", "k3", "f", 60_000, 10_000, exec);
    const second = await s.run("OP", "k3", "f", 60_000, 10_000, exec);
    expect(runs).toBe(2);
    expect(second.replayed).toBe(false);
    const third = await s.run("OP", "k3", "f", 60_000, 10_000, exec);
    expect(third.replayed).toBe(true);
    expect(runs).toBe(2);
  });
});
