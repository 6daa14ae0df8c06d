import http from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { makeSessionCookie, makeUser } from "../../test/support/controlplane-fixtures";
import { createGatewayEnv, type TGatewayEnv } from "../../test/support/gateway-fixtures";
import { loadControlRoutes, type TControlRoute } from "../../bench/fuzz/control-routes";

/**
 * One malformed and one semantically refused request to every kind of edge, over HTTP, and the
 * one error shape of docs/errors.md in each answer. The data plane and execute are the gateway
 * test server; Next's route handlers (control plane, console, auth) are served by a small
 * node:http adapter, as Next would call them.
 */

let env: TGatewayEnv;
let next: { url: string; close(): Promise<void> };
let onCall = "";
const ORIGIN_HEADER: Record<string, string> = {};

/** Serves Next route handlers by their path templates (`/api/control/users/{id}/roles`). */
function serveRoutes(routes: TControlRoute[]): Promise<{ url: string; close(): Promise<void> }> {
  const match = (template: string, pathname: string): Record<string, string> | null => {
    const want = template.split("/");
    const got = pathname.split("/");
    if (want.length !== got.length) return null;
    const params: Record<string, string> = {};
    for (let i = 0; i < want.length; i++) {
      const m = /^\{(\w+)\}$/.exec(want[i]!);
      if (m) params[m[1]!] = decodeURIComponent(got[i]!);
      else if (want[i] !== got[i]) return null;
    }
    return params;
  };
  const server = http.createServer(async (req, res) => {
    const url = new URL(req.url ?? "/", `http://${req.headers.host}`);
    const found = routes.map((r) => ({ r, params: r.method === req.method ? match(r.path, url.pathname) : null })).find((x) => x.params);
    if (!found) return void res.writeHead(404).end();
    const chunks: Buffer[] = [];
    for await (const c of req) chunks.push(c as Buffer);
    const headers = new Headers();
    for (const [k, v] of Object.entries(req.headers)) if (typeof v === "string") headers.set(k, v);
    const body = chunks.length > 0 ? Buffer.concat(chunks) : undefined;
    const answer = await found.r.handler(new Request(url, { method: req.method, headers, body }), { params: Promise.resolve(found.params!) });
    res.writeHead(answer.status, Object.fromEntries(answer.headers));
    res.end(Buffer.from(await answer.arrayBuffer()));
  });
  return new Promise((resolve) =>
    server.listen(0, "127.0.0.1", () => {
      const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
      resolve({ url, close: () => new Promise((done) => server.close(() => done())) });
    }),
  );
}

beforeAll(async () => {
  env = await createGatewayEnv();
  process.env.DATABASE_URL = env.db.url;
  next = await serveRoutes(await loadControlRoutes());
  ORIGIN_HEADER.origin = next.url;
  onCall = await makeSessionCookie(env.prisma, (await makeUser(env.prisma, ["on_call"])).user.id);
}, 120_000);

afterAll(async () => {
  await next?.close();
  await env?.close();
});

type TAnswer = { status: number; body: unknown };

async function send(base: string, method: string, path: string, body?: unknown, headers: Record<string, string> = {}): Promise<TAnswer> {
  const res = await fetch(`${base}${path}`, {
    method,
    headers: { "content-type": "application/json", ...headers },
    ...(body === undefined ? {} : { body: typeof body === "string" ? body : JSON.stringify(body) }),
  });
  return { status: res.status, body: (await res.json()) as unknown };
}

/** The contract: `{error: {code, message, fields?}}` and nothing else, `fields` naming `path`. */
function expectContract(a: TAnswer, status: number, code: string, path: string): void {
  expect(a.status, JSON.stringify(a.body)).toBe(status);
  const body = a.body as { error: { code: string; message: string; fields?: { path: string; message: string }[] } };
  expect(Object.keys(body)).toEqual(["error"]);
  expect(Object.keys(body.error).sort()).toEqual(["code", "fields", "message"]);
  expect(body.error.code).toBe(code);
  expect(body.error.message.length).toBeGreaterThan(0);
  for (const f of body.error.fields!) expect(Object.keys(f).sort()).toEqual(["message", "path"]);
  expect(body.error.fields!.map((f) => f.path)).toContain(path);
}

const chat = { region: "EU", input: { messages: [{ role: "user", content: "hi" }], maxTokens: 8 } };
const outcome = (provider: string) => ({
  type: "provider_call",
  decisionId: "0190a5f0-0000-7000-8000-000000000001",
  provider,
  status: "success",
  latencyMs: 5,
  retryCount: 0,
});

describe("every edge answers one error shape: 400 malformed, 422 invalid", () => {
  it("data plane: decide", async () => {
    expectContract(await send(env.server.url, "POST", "/api/v1/decide", { operation: "SEND_SMS", region: 7, requestId: "edge-1" }), 400, "malformed", "region");
    expectContract(
      await send(env.server.url, "POST", "/api/v1/decide", { operation: "SEND_SMS", region: "MARS", requestId: "edge-2" }),
      422,
      "invalid",
      "region",
    );
    expectContract(
      await send(env.server.url, "POST", "/api/v1/decide", '{"operation":"SEND_SMS","region":"EU","region":"NA","requestId":"edge-3"}'),
      400,
      "malformed",
      "region",
    );
  });

  it("data plane: outcome", async () => {
    expectContract(await send(env.server.url, "POST", "/api/v1/outcomes", { ...outcome("provider_A"), latencyMs: "fast" }), 400, "malformed", "latencyMs");
    expectContract(await send(env.server.url, "POST", "/api/v1/outcomes", outcome("provider_Z")), 422, "invalid", "provider");
  });

  it("execute", async () => {
    expectContract(await send(env.server.url, "POST", "/api/v1/execute/LLM_CHAT", { input: {} }), 400, "malformed", "region");
    expectContract(await send(env.server.url, "POST", "/api/v1/execute/NO_SUCH_OPERATION", chat), 422, "invalid", "operation");
  });

  it("control plane", async () => {
    const headers = { ...ORIGIN_HEADER, cookie: onCall };
    expectContract(
      await send(next.url, "POST", "/api/control/overrides", { kind: "routing_kill_switch", operationKey: "SEND_SMS" }, headers),
      400,
      "malformed",
      "reason",
    );
    expectContract(
      await send(next.url, "POST", "/api/control/overrides", { kind: "routing_kill_switch", operationKey: "NO_SUCH_OPERATION", reason: "edge walk" }, headers),
      422,
      "invalid",
      "operationKey",
    );
  });

  it("console route", async () => {
    const headers = { cookie: onCall };
    expectContract(await send(next.url, "GET", "/api/console/overview?operation=SEND_SMS", undefined, headers), 400, "malformed", "region");
    expectContract(
      await send(next.url, "GET", "/api/console/what-if?version=00000000-0000-4000-8000-000000000000", undefined, headers),
      422,
      "invalid",
      "version",
    );
  });

  it("auth login: malformed is 400; wrong credentials, its semantic refusal, the same shape without fields", async () => {
    expectContract(await send(next.url, "POST", "/api/auth/login", { email: "someone@test.local" }, ORIGIN_HEADER), 400, "malformed", "password");
    const wrong = await send(next.url, "POST", "/api/auth/login", { email: "nobody@test.local", password: "not it" }, ORIGIN_HEADER);
    expect(wrong).toEqual({ status: 401, body: { error: { code: "invalid_credentials", message: expect.any(String) } } });
  });
});
