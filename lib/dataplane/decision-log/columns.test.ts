import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { adminDatabaseUrl } from "@/test/support/database";
import {
  boolParam,
  dateParam,
  float8Param,
  int4Param,
  int8Scalar,
  textParam,
  timestamptzParam,
  timestamptzScalar,
  toBuffer,
  uuidParam,
  type TBinaryParam,
} from "./columns";

let client: pg.Client;

beforeAll(async () => {
  client = new pg.Client({ connectionString: adminDatabaseUrl() });
  await client.connect();
});

afterAll(async () => {
  await client?.end();
});

/** What Postgres reads from a binary array parameter, as text per element (null stays null). */
async function received(param: TBinaryParam, type: string): Promise<Array<string | null>> {
  const sql = `select e::text as v from unnest($1::${type}) with ordinality as u(e, n) order by n`;
  return (await client.query<{ v: string | null }>(sql, [toBuffer(param)])).rows.map((r) => r.v);
}

describe("binary array parameters", () => {
  it("text[] keeps every character, empty strings and NULLs apart", async () => {
    const values = ["a", "", null, 'quote " backslash \\ brace } comma ,', "ünïcödé 🚦", "x".repeat(5000)];
    expect(await received(textParam(values), "text[]")).toEqual(values);
    expect(await received(textParam([]), "text[]")).toEqual([]);
  });

  it("uuid[] is read as the same UUIDs, in upper or lower case, and refuses anything else", async () => {
    const ids = ["01a234f4-b0a0-7928-b28e-7a0fd7357c44", null, "FFFFFFFF-0000-4000-8000-00000000000A"];
    expect(await received(uuidParam(ids), "uuid[]")).toEqual(["01a234f4-b0a0-7928-b28e-7a0fd7357c44", null, "ffffffff-0000-4000-8000-00000000000a"]);
    expect(() => uuidParam(["01a234f4b0a07928b28e7a0fd7357c44"])).toThrow(/not a UUID/);
    expect(() => uuidParam(["01a234f4-b0a0-7928-b28e-7a0fd7357cZZ"])).toThrow(/not a UUID/);
    expect(() => uuidParam(["01a234f4-b0a0-7928-b28e-7a0fd7357c4é"])).toThrow(/not a UUID/);
    expect(() => uuidParam(["01a234f4b-0a0-7928-b28e-7a0fd7357c44"])).toThrow(/not a UUID/);
    expect(() => uuidParam(["01a234f4-b0a0-7928-b28e-7a0fd7357c44 "])).toThrow(/not a UUID/);
  });

  it("text[] elements that are short and ASCII, short and not, or long come out the same", async () => {
    const values = ["SEND_SMS", "é", "x".repeat(64), "y".repeat(65), `${"z".repeat(63)}ü`, "del \u007f, tab \t"];
    expect(await received(textParam(values), "text[]")).toEqual(values);
  });

  it("date[] is the same day, before and after 2000", async () => {
    const days = ["2026-12-02", null, "1999-12-31", "2040-02-29", "2000-01-01"];
    expect(await received(dateParam(days), "date[]")).toEqual(days);
    expect(() => dateParam(["2026-13-01"])).toThrow(/not a day/);
    expect(() => dateParam(["2026-1-01"])).toThrow(/not a day/);
  });

  it("one bigint and one timestamptz", async () => {
    const sql = "select $1::bigint::text as n, (extract(epoch from $2::timestamptz) * 1000)::bigint::text as t";
    const at = Date.UTC(2026, 11, 2, 6, 45, 1, 234);
    expect((await client.query<{ n: string; t: string }>(sql, [toBuffer(int8Scalar(300_000)), toBuffer(timestamptzScalar(at))])).rows[0]).toEqual({
      n: "300000",
      t: String(at),
    });
    expect(() => int8Scalar(2 ** 53)).toThrow(/not a safe integer/);
    expect(() => timestamptzScalar(Number.POSITIVE_INFINITY)).toThrow(/not a time/);
  });

  it("timestamptz[] is the same instant to the millisecond, before and after 2000 and 2038", async () => {
    const times = [Date.UTC(2026, 11, 2, 4, 13, 0, 960), null, Date.UTC(1999, 11, 31, 23, 59, 59, 1), Date.UTC(2040, 0, 1), 0];
    const sql = "select (extract(epoch from e) * 1000)::bigint::text as v from unnest($1::timestamptz[]) with ordinality as u(e, n) order by n";
    const rows = (await client.query<{ v: string | null }>(sql, [toBuffer(timestamptzParam(times))])).rows.map((r) => r.v);
    expect(rows).toEqual(times.map((t) => (t === null ? null : String(t))));
    expect(() => timestamptzParam([Number.NaN])).toThrow(/not a time/);
  });

  it("bool[], float8[] and int4[] carry their values and NULLs", async () => {
    expect(await received(boolParam([true, false, null]), "bool[]")).toEqual(["true", "false", null]);
    expect(await received(float8Param([2.6000000000000014, -0.5, null, Number.POSITIVE_INFINITY, 1e-300]), "float8[]")).toEqual([
      "2.6000000000000014",
      "-0.5",
      null,
      null,
      "1e-300",
    ]);
    expect(await received(int4Param([0, -1, 2 ** 31 - 1, null]), "int[]")).toEqual(["0", "-1", "2147483647", null]);
    expect(() => int4Param([2 ** 31])).toThrow(/not a 32-bit integer/);
    expect(() => int4Param([1.5])).toThrow(/not a 32-bit integer/);
  });
});
