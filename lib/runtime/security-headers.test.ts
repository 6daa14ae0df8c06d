import http from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { API_CSP, commonSecurityHeaders, securityHeaders } from "./security-headers";

/**
 * The server's security headers against a real server and client: every way a handler writes its
 * head (a flat list, pairs, an object, a reason phrase, setHeader then an implicit head, nothing at
 * all) gets the security headers once each, and a header the handler set itself is kept.
 */
const HEADERS: [string, string][] = [...commonSecurityHeaders({ dev: false, https: true }), ["content-security-policy", API_CSP]];

const handlers: Record<string, (res: http.ServerResponse) => void> = {
  "/flat": (res) => res.writeHead(200, ["content-type", "application/json", "content-length", "2"]).end("{}"),
  "/pairs": (res) => res.writeHead(200, [["content-type", "application/json"]]).end("{}"),
  "/object": (res) => res.writeHead(201, { "content-type": "application/json" }).end("{}"),
  "/reason": (res) => res.writeHead(404, "Nowhere", { "content-type": "text/plain" }).end("no"),
  "/implicit": (res) => {
    res.setHeader("content-type", "text/plain");
    res.statusCode = 202;
    res.end("ok");
  },
  "/bare": (res) => res.end(),
  "/set-then-list": (res) => {
    res.setHeader("x-request-note", "kept");
    res.writeHead(200, ["content-type", "text/plain"]).end("ok");
  },
  "/own-csp": (res) => {
    res.setHeader("content-security-policy", "default-src 'self'");
    res.end("page");
  },
  "/own-frame-options": (res) => res.writeHead(200, { "X-Frame-Options": "SAMEORIGIN" }).end(),
  "/own-in-list": (res) => res.writeHead(200, ["Referrer-Policy", "same-origin"]).end(),
  "/twice": (res) => {
    res.writeHead(200).end();
    try {
      res.writeHead(500);
    } catch (err) {
      twiceError = (err as { code?: string }).code ?? "thrown";
    }
  },
};
let twiceError: string | null = null;

let server: http.Server;
let port = 0;

beforeAll(async () => {
  const secure = securityHeaders(HEADERS);
  server = http.createServer((req, res) => {
    secure(res);
    handlers[req.url ?? ""]!(res);
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  port = (server.address() as AddressInfo).port;
});
afterAll(async () => {
  await new Promise((resolve) => server.close(resolve));
});

/** Status, status text and each header's values as sent (raw: a header sent twice shows twice). */
function get(pathname: string): Promise<{ status: number; message: string; values: (name: string) => string[] }> {
  return new Promise((resolve, reject) => {
    http
      .get({ host: "127.0.0.1", port, path: pathname, agent: false }, (res) => {
        const raw = res.rawHeaders;
        const values = (name: string) => raw.flatMap((v, i) => (i % 2 === 0 && v.toLowerCase() === name ? [raw[i + 1]!] : []));
        res.resume();
        res.on("end", () => resolve({ status: res.statusCode!, message: res.statusMessage!, values }));
      })
      .on("error", reject);
  });
}

describe("securityHeaders", () => {
  it.each(["/flat", "/pairs", "/object", "/reason", "/implicit", "/bare", "/set-then-list"])("%s: every security header exactly once", async (pathname) => {
    const r = await get(pathname);
    for (const [name, value] of HEADERS) expect(r.values(name), name).toEqual([value]);
  });

  it("keeps what the handler wrote: its status, reason, body headers", async () => {
    expect(await get("/object")).toMatchObject({ status: 201 });
    const reason = await get("/reason");
    expect([reason.status, reason.message, reason.values("content-type")]).toEqual([404, "Nowhere", ["text/plain"]]);
    const implicit = await get("/implicit");
    expect([implicit.status, implicit.values("content-type")]).toEqual([202, ["text/plain"]]);
    expect((await get("/flat")).values("content-length")).toEqual(["2"]);
    expect((await get("/set-then-list")).values("x-request-note")).toEqual(["kept"]);
  });

  it("a security header the handler set itself is kept, not doubled or replaced", async () => {
    expect((await get("/own-csp")).values("content-security-policy")).toEqual(["default-src 'self'"]);
    expect((await get("/own-frame-options")).values("x-frame-options")).toEqual(["SAMEORIGIN"]);
    const list = await get("/own-in-list");
    expect(list.values("referrer-policy")).toEqual(["same-origin"]);
    expect(list.values("x-content-type-options")).toEqual(["nosniff"]);
  });

  it("a second head is refused as node refuses it", async () => {
    twiceError = null;
    expect((await get("/twice")).status).toBe(200);
    expect(twiceError).toBe("ERR_HTTP_HEADERS_SENT");
  });
});
