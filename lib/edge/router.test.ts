import http from "node:http";
import { once } from "node:events";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ContractError, sendJson } from "./http";
import { createFastPath } from "./router";

const fast = createFastPath([
  { method: "POST", path: "/api/v1/decide", handler: (_req, res, params) => sendJson(res, 200, { route: "decide", params }) },
  { method: "POST", path: "/api/v1/execute/:operation", handler: async (_req, res, params) => sendJson(res, 200, { route: "execute", params }) },
  { method: "GET", path: "/api/v1/execute/jobs/:id", handler: (_req, res, params) => sendJson(res, 200, { route: "job", params }) },
  {
    method: "GET",
    path: "/api/v1/throws",
    handler: () => {
      throw new ContractError("teapot", "thrown");
    },
  },
  { method: "GET", path: "/api/v1/rejects", handler: async () => Promise.reject(new ContractError("conflict", "rejected")) },
]);
const server = http.createServer((req, res) => {
  if (!fast(req, res)) sendJson(res, 299, { route: "next" });
});
let base = "";

beforeAll(async () => {
  server.listen(0, "127.0.0.1");
  await once(server, "listening");
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(() => new Promise<void>((r) => server.close(() => r())));

async function call(method: string, path: string) {
  const res = await fetch(base + path, { method });
  return { status: res.status, body: (await res.json()) as Record<string, unknown> };
}

describe("data-plane router", () => {
  it("finds routes spelled exactly, with a query, a trailing slash or percent-escapes alike", async () => {
    expect(await call("POST", "/api/v1/decide")).toEqual({ status: 200, body: { route: "decide", params: {} } });
    expect(await call("POST", "/api/v1/decide?x=1")).toEqual({ status: 200, body: { route: "decide", params: {} } });
    expect(await call("POST", "/api/v1/decide/")).toEqual({ status: 200, body: { route: "decide", params: {} } });
    expect(await call("POST", "/api/v1/execute/LLM_CHAT")).toEqual({ status: 200, body: { route: "execute", params: { operation: "LLM_CHAT" } } });
    expect(await call("POST", "/api/v1/execute/SEND%20SMS")).toEqual({ status: 200, body: { route: "execute", params: { operation: "SEND SMS" } } });
    expect(await call("GET", "/api/v1/execute/jobs/j_1")).toEqual({ status: 200, body: { route: "job", params: { id: "j_1" } } });
  });

  it("answers 405 for a known path with another method, 404 for an unknown one, and leaves other paths to the app", async () => {
    expect((await call("GET", "/api/v1/decide")).status).toBe(405);
    expect((await call("GET", "/api/v1/execute/LLM_CHAT")).status).toBe(405);
    const missing = await call("POST", "/api/v1/nothing/here");
    expect(missing.status).toBe(404);
    expect(missing.body).toMatchObject({ error: { code: "not_found", message: "no data-plane endpoint at /api/v1/nothing/here" } });
    expect(await call("GET", "/console")).toEqual({ status: 299, body: { route: "next" } });
  });

  it("turns what a handler throws or rejects with into its JSON error", async () => {
    expect(await call("GET", "/api/v1/throws")).toMatchObject({ status: 418, body: { error: { code: "teapot" } } });
    expect(await call("GET", "/api/v1/rejects")).toMatchObject({ status: 409, body: { error: { code: "conflict" } } });
  });
});
