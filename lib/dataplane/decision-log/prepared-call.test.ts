import pg from "pg";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { adminDatabaseUrl } from "@/test/support/database";
import { int4Param, textParam } from "./columns";
import { callPrepared } from "./prepared-call";

let client: pg.Client;

beforeEach(async () => {
  client = new pg.Client({ connectionString: adminDatabaseUrl() });
  await client.connect();
});

afterEach(async () => {
  await client?.end();
});

const ELEMENTS = "select e, n::text from unnest($1::text[]) with ordinality as u(e, n) order by n";

async function preparedNamed(name: string): Promise<number> {
  const r = await client.query<{ n: number }>("select count(*)::int as n from pg_prepared_statements where name = $1", [name]);
  return r.rows[0]!.n;
}

describe("callPrepared", () => {
  it("returns the rows as text by position, NULLs included, and prepares the statement once per session", async () => {
    expect(await callPrepared(client, "t_elements", ELEMENTS, [textParam(["a", null, "ü"])])).toEqual([
      ["a", "1"],
      [null, "2"],
      ["ü", "3"],
    ]);
    expect(await callPrepared(client, "t_elements", ELEMENTS, [textParam([])])).toEqual([]);
    expect(await preparedNamed("t_elements")).toBe(1);
  });

  it("queues behind other queries on the same client", async () => {
    const [a, b, c] = await Promise.all([
      callPrepared(client, "t_elements", ELEMENTS, [textParam(["x"])]),
      client.query<{ v: number }>("select 7 as v"),
      callPrepared(client, "t_elements", ELEMENTS, [textParam(["y"])]),
    ]);
    expect(a).toEqual([["x", "1"]]);
    expect(b.rows[0]!.v).toBe(7);
    expect(c).toEqual([["y", "1"]]);
  });

  it("rejects with Postgres's error and leaves the client usable", async () => {
    const divide = "select (10 / ($1::int[])[1])::text";
    await expect(callPrepared(client, "t_divide", divide, [int4Param([0])])).rejects.toMatchObject({ code: "22012" });
    expect(await callPrepared(client, "t_divide", divide, [int4Param([5])])).toEqual([["2"]]);
    await expect(callPrepared(client, "t_broken", "select from from", [])).rejects.toMatchObject({ code: "42601" });
    expect((await client.query<{ v: number }>("select 1 as v")).rows[0]!.v).toBe(1);
  });

  it("prepares the statement again when the session lost it", async () => {
    expect(await callPrepared(client, "t_elements", ELEMENTS, [textParam(["a"])])).toEqual([["a", "1"]]);
    await client.query("deallocate all");
    expect(await preparedNamed("t_elements")).toBe(0);
    expect(await callPrepared(client, "t_elements", ELEMENTS, [textParam(["b"])])).toEqual([["b", "1"]]);
    expect(await preparedNamed("t_elements")).toBe(1);
  });

  it("with a query_timeout, clears every read timer node-pg sets, and times out like any query", async () => {
    const QUERY_TIMEOUT_MS = 707;
    const timed = new pg.Client({ connectionString: adminDatabaseUrl(), query_timeout: QUERY_TIMEOUT_MS });
    await timed.connect();
    try {
      // node-pg sets a read timer per query and clears it through the query's callback; a call
      // that settled without it left its timer (holding the call and its parameters) to fire.
      const set = new Set<unknown>();
      const cleared = new Set<unknown>();
      const realSet = globalThis.setTimeout;
      const realClear = globalThis.clearTimeout;
      const setSpy = vi.spyOn(globalThis, "setTimeout").mockImplementation(((fn: () => void, ms?: number) => {
        const t = realSet(fn, ms);
        if (ms === QUERY_TIMEOUT_MS) set.add(t);
        return t;
      }) as unknown as typeof setTimeout);
      const clearSpy = vi.spyOn(globalThis, "clearTimeout").mockImplementation(((t?: NodeJS.Timeout) => {
        cleared.add(t);
        realClear(t);
      }) as typeof clearTimeout);
      try {
        for (let i = 0; i < 5; i++) expect(await callPrepared(timed, "t_elements", ELEMENTS, [textParam([String(i)])])).toEqual([[String(i), "1"]]);
      } finally {
        setSpy.mockRestore();
        clearSpy.mockRestore();
      }
      expect(set.size).toBe(5);
      expect([...set].filter((t) => !cleared.has(t))).toEqual([]);
      await expect(callPrepared(timed, "t_sleep", "select pg_sleep(($1::int[])[1] / 1000.0)::text", [int4Param([1500])])).rejects.toThrow(/timeout/i);
      await new Promise((r) => setTimeout(r, 1600));
      expect(await callPrepared(timed, "t_elements", ELEMENTS, [textParam(["after"])])).toEqual([["after", "1"]]);
    } finally {
      await timed.end();
    }
  });
});
