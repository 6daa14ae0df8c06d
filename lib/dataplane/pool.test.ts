import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTestDatabase, type TTestDatabase } from "../../test/support/database";
import { createPool } from "./pool";

let db: TTestDatabase;
beforeAll(async () => {
  db = await createTestDatabase({ migrate: false });
});
afterAll(async () => {
  await db.drop();
});

async function terminate(pid: number): Promise<void> {
  const admin = new pg.Client({ connectionString: db.url });
  await admin.connect();
  try {
    await admin.query("select pg_terminate_backend($1)", [pid]);
  } finally {
    await admin.end();
  }
}

describe("createPool", () => {
  it("pg-pool leaves a checked-out client without an 'error' listener; createPool's clients keep one", async () => {
    const plain = new pg.Pool({ connectionString: db.url, max: 1 });
    const guarded = createPool({ connectionString: db.url, max: 1 });
    const a = await plain.connect();
    const b = await guarded.connect();
    expect(a.listenerCount("error")).toBe(0);
    expect(b.listenerCount("error")).toBeGreaterThan(0);
    a.release();
    b.release();
    await Promise.all([plain.end(), guarded.end()]);
  });

  // Regression: stopping Postgres under load killed instances (unhandled 'error' event on Client, 57P01).
  it("a checked-out client whose session Postgres ends between statements fails its next query instead of crashing the process", async () => {
    const pool = createPool({ connectionString: db.url, max: 2 });
    const client = await pool.connect();
    const pid = (await client.query<{ pid: number }>("select pg_backend_pid() as pid")).rows[0]!.pid;
    const ended = new Promise<void>((resolve) => client.once("end", () => resolve()));
    await terminate(pid);
    await ended;
    await expect(client.query("select 1")).rejects.toThrow();
    client.release(true);
    expect((await pool.query<{ one: number }>("select 1 as one")).rows[0]!.one).toBe(1);
    await pool.end();
  });
});
