import type { IncomingMessage } from "node:http";
import { describe, expect, it } from "vitest";
import { createAuthenticator, sameKey } from "./authenticate";

const KEY = "bootstrap-key-0123456789abcdef";
const unlimited = { defaultLimit: { perSecond: 1e6, burst: 1e6 }, overrides: new Map() };
const auth = createAuthenticator({ apiKey: KEY, allowAnonymousWithoutKey: false, rateLimit: unlimited });
const call = (authorization: string | undefined) => auth({ headers: authorization === undefined ? {} : { authorization } } as IncomingMessage, "decide");

describe("sameKey", () => {
  it("is true only for the same characters, whatever the presented length", () => {
    expect(sameKey(KEY, KEY)).toBe(true);
    for (const other of ["", KEY.slice(0, -1), `${KEY}x`, `${KEY.slice(0, -1)}g`, `x${KEY.slice(1)}`, `${KEY}\u0000`, KEY.toUpperCase()]) {
      expect(sameKey(other, KEY)).toBe(false);
    }
  });
});

describe("the bootstrap key", () => {
  it("is accepted as Bearer in any spelling the header allows, and nothing else is", async () => {
    for (const header of [`Bearer ${KEY}`, `bearer ${KEY}`, `Bearer   ${KEY}  `, `BEARER\t${KEY}`]) {
      const r = await call(header);
      expect(r.ok && r.principal.kind).toBe("environment_key");
    }
    for (const header of [`Bearer ${KEY}x`, `Bearer ${KEY.slice(1)}`, `Bearer x${KEY}`, `Bearer ${KEY} ${KEY}`]) {
      expect(await call(header)).toMatchObject({ ok: false, status: 401 });
    }
    for (const header of [KEY, `Basic ${KEY}`, "Bearer", "Bearer ", "Bearer    "]) {
      expect(await call(header)).toMatchObject({ ok: false, status: 401 });
    }
    expect(await call(undefined)).toMatchObject({ ok: false, status: 401 });
  });

  it("is still rate limited", async () => {
    const limited = createAuthenticator({
      apiKey: KEY,
      allowAnonymousWithoutKey: false,
      rateLimit: { defaultLimit: { perSecond: 1, burst: 2 }, overrides: new Map() },
    });
    const req = { headers: { authorization: `Bearer ${KEY}` } } as IncomingMessage;
    expect((await limited(req, "decide")).ok).toBe(true);
    expect((await limited(req, "decide")).ok).toBe(true);
    expect(await limited(req, "decide")).toMatchObject({ ok: false, status: 429 });
  });
});
