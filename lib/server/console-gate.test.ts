import http from "node:http";
import net from "node:net";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { createPrisma, type PrismaClient } from "../db/client";
import { createTestDatabase, type TTestDatabase } from "../../test/support/database";
import { makeSessionCookie, makeUser } from "../../test/support/controlplane-fixtures";
import { isSameOrigin } from "../auth/same-origin";
import { gateConsoleRequest } from "./console-gate";

/**
 * The gate in front of Next, on a real socket, with a stand-in for Next that renders a marker:
 * whatever reaches it would have been rendered.
 */
const MARKER = "rendered-page-data";
let db: TTestDatabase;
let prisma: PrismaClient;
let server: http.Server;
let base: string;
let cookie: string;
let reachedNext = 0;

beforeAll(async () => {
  db = await createTestDatabase();
  prisma = createPrisma(db.url);
  const { user } = await makeUser(prisma, ["viewer"]);
  cookie = await makeSessionCookie(prisma, user.id);
  server = http.createServer((req, res) => {
    void gateConsoleRequest(req, res, { prisma: () => prisma, maxBodyBytes: 1024, maxAuthBodyBytes: 256 }).then((pass) => {
      if (!pass) return;
      reachedNext += 1;
      req.resume();
      req.on("end", () => res.end(MARKER));
    });
  });
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});

afterAll(async () => {
  await new Promise<void>((r) => server.close(() => r()));
  await prisma.$disconnect();
  await db.drop();
});

async function send(path: string, init: RequestInit & { headers?: Record<string, string> } = {}) {
  const res = await fetch(base + path, { redirect: "manual", ...init });
  return { status: res.status, location: res.headers.get("location"), body: await res.text() };
}

describe("console gate", () => {
  it("sends a signed-out page request (HTML or RSC) to /login with an empty body", async () => {
    for (const headers of [{}, { rsc: "1" }, { cookie: "sy_session=forged" }] as Record<string, string>[]) {
      const r = await send("/decisions?_rsc=abc&status=x", { headers });
      expect(r.status).toBe(307);
      expect(r.location).toBe(`/login?next=${encodeURIComponent("/decisions?status=x")}`);
      expect(r.body).toBe("");
    }
  });

  it("lets the login page, route handlers and static assets through, and signed-in pages", async () => {
    const before = reachedNext;
    for (const path of ["/login", "/api/control/users", "/_next/static/chunks/a.js", "/favicon.ico", "/icon.svg"]) expect((await send(path)).body).toBe(MARKER);
    expect((await send("/decisions", { headers: { cookie } })).body).toBe(MARKER);
    expect(reachedNext - before).toBe(6);
  });

  it("refuses writes without this site's Origin, or from a cross-site fetch, before Next sees them", async () => {
    const before = reachedNext;
    const post = (headers: Record<string, string>) => send("/login", { method: "POST", body: "x", headers: { "next-action": "abc", ...headers } });
    expect((await post({})).status).toBe(403);
    expect((await post({ origin: "http://attacker.invalid" })).status).toBe(403);
    expect((await post({ origin: base, "sec-fetch-site": "cross-site" })).status).toBe(403);
    expect((await post({ origin: base })).status).toBe(200);
    expect(reachedNext - before).toBe(1);
  });

  it("lets an API-key write to /api/control/apply through without an Origin (the CLI), and nothing else", async () => {
    const before = reachedNext;
    const key = { authorization: "Bearer sy_0123abcd_secret" };
    expect((await send("/api/control/apply", { method: "POST", body: "x", headers: key })).status).toBe(200);
    expect((await send("/api/control/apply", { method: "POST", body: "x", headers: { cookie } })).status).toBe(403);
    expect((await send("/api/control/catalog/providers", { method: "POST", body: "x", headers: key })).status).toBe(403);
    // The body limit still holds.
    expect((await send("/api/control/apply", { method: "POST", body: "x".repeat(2048), headers: key })).status).toBe(413);
    expect(reachedNext - before).toBe(1);
  });

  it("refuses bodies over the limit (413) and bodies without a length (411)", async () => {
    const big = await send("/api/control/factor-lists", { method: "POST", body: "x".repeat(2048), headers: { origin: base, cookie } });
    expect(big.status).toBe(413);
    expect(JSON.parse(big.body)).toMatchObject({ error: { code: "payload_too_large" } });
    expect((await send("/api/auth/login", { method: "POST", body: "x".repeat(512), headers: { origin: base } })).status).toBe(413);
    // A chunked body has no declared length to check.
    const chunked = await new Promise<string>((resolve, reject) => {
      const socket = net.connect((server.address() as AddressInfo).port, "127.0.0.1", () => {
        socket.write(
          `POST /api/control/factor-lists HTTP/1.1\r\nhost: ${base.slice(7)}\r\norigin: ${base}\r\ntransfer-encoding: chunked\r\n\r\n5\r\nhello\r\n0\r\n\r\n`,
        );
      });
      let text = "";
      socket.on("data", (b) => (text += b.toString()));
      socket.on("end", () => resolve(text));
      socket.on("error", reject);
    });
    expect(chunked).toMatch(/^HTTP\/1.1 411/);
  });

  it("answers 413 before the declared body is sent, not after waiting for it", async () => {
    // The client declares 100 MB and sends none of it: the answer must not wait for the body.
    // The gate's discard timer is frozen, so an answer that waits for it never comes.
    vi.useFakeTimers({ toFake: ["setTimeout", "clearTimeout"] });
    const answer = await new Promise<string>((resolve, reject) => {
      const socket = net.connect((server.address() as AddressInfo).port, "127.0.0.1", () => {
        socket.write(`POST /api/control/factor-lists HTTP/1.1\r\nhost: ${base.slice(7)}\r\norigin: ${base}\r\ncontent-length: ${100 * 1024 ** 2}\r\n\r\n`);
      });
      let text = "";
      socket.on("data", (b) => {
        text += b.toString();
        if (text.includes("payload_too_large")) {
          socket.destroy();
          resolve(text);
        }
      });
      socket.on("close", () => resolve(text));
      socket.on("error", reject);
    });
    vi.useRealTimers();
    expect(answer).toMatch(/^HTTP\/1.1 413/);
  });

  it("answers a signed-out write to a page with 401, not a rendered page", async () => {
    const r = await send("/decisions", { method: "POST", body: "[]", headers: { origin: base, "next-action": "abc" } });
    expect(r.status).toBe(401);
    expect(r.body).not.toContain(MARKER);
  });
});

describe("isSameOrigin with SWITCHYARD_PUBLIC_URL", () => {
  const headers = (h: Record<string, string>) => new Headers(h);
  it("compares with the configured public origin, not the Host header, when one is set", () => {
    const env = { SWITCHYARD_PUBLIC_URL: "https://switchyard.example.test" } as unknown as NodeJS.ProcessEnv;
    expect(isSameOrigin(headers({ origin: "https://switchyard.example.test", host: "10.0.0.5:3000" }), env)).toBe(true);
    // Host spoofed to match a foreign origin: refused, the configured URL decides.
    expect(isSameOrigin(headers({ origin: "http://attacker.invalid", host: "attacker.invalid" }), env)).toBe(false);
    // Same host, other scheme.
    expect(isSameOrigin(headers({ origin: "http://switchyard.example.test", host: "switchyard.example.test" }), env)).toBe(false);
    expect(isSameOrigin(headers({ origin: "http://a.test:3000", host: "a.test:3000" }), {} as unknown as NodeJS.ProcessEnv)).toBe(true);
  });
});
