/* eslint-disable @typescript-eslint/no-explicit-any -- JSON response bodies are asserted field by field */
import { mkdtemp, rm } from "node:fs/promises";
import net from "node:net";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { SYSTEM_ACTOR } from "@/lib/audit/actor";
import { createApiKey } from "@/lib/controlplane/api-keys/create-api-key";
import { createGatewayEnv, type TGatewayEnv } from "../../test/support/gateway-fixtures";
import { dataPlaneSettings } from "./settings";
import { startStandaloneDataPlane } from "../../test/support/standalone-dataplane";

/**
 * Issue 25's data-plane items against decide, outcomes and execute on one real server: duplicate
 * keys, nesting within the size limit, idempotency keys reused with another request, job results
 * read by another key, and slow or aborting clients. The timeouts are short here (read from the
 * environment, as server.ts reads them) so the slow-client tests take a second or two.
 */
process.env.HEADERS_TIMEOUT_MS = "500";
process.env.REQUEST_TIMEOUT_MS = "1000";

let env: TGatewayEnv;

beforeAll(async () => {
  env = await createGatewayEnv();
});
afterAll(async () => {
  await env?.close();
});

async function post(pathname: string, body: string | unknown, headers: Record<string, string> = {}, base = env.server.url) {
  const res = await fetch(`${base}${pathname}`, {
    method: "POST",
    headers: { "content-type": "application/json", ...headers },
    body: typeof body === "string" ? body : JSON.stringify(body),
  });
  const text = await res.text();
  return { status: res.status, headers: res.headers, text, json: JSON.parse(text) as Record<string, any> };
}

const decisionRows = async (requestId: string) =>
  (await env.pool.query<{ region: string }>("select region from decision where request_id = $1", [requestId])).rows;
const upstreamCalls = () => Object.values(env.mocks).reduce((n, m) => n + m.requests.length, 0);
const chat = (text: string) => ({ region: "EU", input: { messages: [{ role: "user", content: text }], maxTokens: 16 } });

describe("duplicate JSON keys", () => {
  it("decide refuses the issue's body (400 naming the key) and logs no decision", async () => {
    const r = await post("/api/v1/decide", '{"operation":"SEND_SMS","region":"EU","requestId":"dup-1","region":"NA"}');
    expect(r.status).toBe(400);
    expect(r.json.error).toMatchObject({ code: "malformed", fields: [{ path: "region" }] });
    expect(await decisionRows("dup-1")).toEqual([]);
  });

  it("outcomes refuses one inside a batch, naming its path", async () => {
    const r = await post("/api/v1/outcomes", '{"outcomes":[{"type":"provider_call","status":"success","status":"failure"}]}');
    expect(r.status).toBe(400);
    expect(r.json.error).toMatchObject({ code: "malformed", fields: [{ path: "outcomes.0.status" }] });
  });

  it("execute refuses it without calling a provider", async () => {
    const before = upstreamCalls();
    const body = JSON.stringify(chat("hi")).replace(/}$/, ',"region":"NA"}');
    const r = await post("/api/v1/execute/LLM_CHAT", body);
    expect(r.status).toBe(400);
    expect(r.json.error).toMatchObject({ code: "malformed", fields: [{ path: "region" }] });
    expect(upstreamCalls()).toBe(before);
  });
});

describe("nesting within the size limit", () => {
  it("is refused before JSON.parse on execute (4 million levels in 8 MB) and outcomes (1 million), naming the limit", async () => {
    const before = upstreamCalls();
    const deep = (levels: number) => "[".repeat(levels) + "]".repeat(levels);
    const execute = await post("/api/v1/execute/LLM_CHAT", `{"region":"EU","input":${deep(4_000_000 - 1)}}`);
    expect(execute.status).toBe(400);
    expect(execute.json.error).toMatchObject({ code: "malformed", message: expect.stringContaining("levels deep") });
    expect(execute.json.error.message).toContain("64");
    const outcomes = await post("/api/v1/outcomes", deep(1_000_000));
    expect(outcomes.status).toBe(400);
    expect(outcomes.json.error).toMatchObject({ code: "malformed", message: expect.stringContaining("levels deep") });
    expect(upstreamCalls()).toBe(before);
  });
});

describe("an idempotency key reused with another request", () => {
  it("decide: another region or other attributes get 422; the same request replays, attributes in any order", async () => {
    const first = await post("/api/v1/decide", { operation: "SEND_SMS", region: "EU", requestId: "reuse-1", attributes: { compliance: "gdpr", tier: "gold" } });
    expect(first.status).toBe(200);
    const region = await post("/api/v1/decide", {
      operation: "SEND_SMS",
      region: "NA",
      requestId: "reuse-1",
      attributes: { compliance: "gdpr", tier: "gold" },
    });
    expect(region.status).toBe(422);
    expect(region.json.error).toMatchObject({ code: "idempotency_key_reused", fields: [{ path: "requestId" }] });
    const attributes = await post("/api/v1/decide", {
      operation: "SEND_SMS",
      region: "EU",
      requestId: "reuse-1",
      attributes: { compliance: "none", tier: "gold" },
    });
    expect(attributes.status).toBe(422);
    const same = await post("/api/v1/decide", { operation: "SEND_SMS", region: "EU", requestId: "reuse-1", attributes: { tier: "gold", compliance: "gdpr" } });
    expect(same.status).toBe(200);
    expect(same.headers.get("idempotent-replayed")).toBe("true");
    expect(same.text).toBe(first.text);
    expect(await decisionRows("reuse-1")).toEqual([{ region: "EU" }]);
  });

  it("decide, 50 concurrent calls mixing EU and NA: only those matching the first accepted one get its decision, the others 422", async () => {
    const regions = Array.from({ length: 50 }, (_, i) => (i % 2 === 0 ? "EU" : "NA"));
    const answers = await Promise.all(regions.map((region) => post("/api/v1/decide", { operation: "SEND_SMS", region, requestId: "reuse-concurrent" })));
    const rows = await decisionRows("reuse-concurrent");
    expect(rows).toHaveLength(1);
    const winner = rows[0]!.region;
    answers.forEach((a, i) => {
      if (regions[i] === winner) {
        expect(a.status).toBe(200);
        expect(a.json.region).toBe(winner);
      } else {
        expect(a.status).toBe(422);
        expect(a.json.error.code).toBe("idempotency_key_reused");
      }
    });
    expect(new Set(answers.filter((a) => a.status === 200).map((a) => a.json.decisionId)).size).toBe(1);
  });

  it("decide on another instance, answered from the decision table: 422 for another region, the same decision for the same request", async () => {
    const spoolDir = await mkdtemp(path.join(tmpdir(), "sy-spool-"));
    const other = await startStandaloneDataPlane({ databaseUrl: env.db.url, seed: false, settings: { ...dataPlaneSettings({}, process.cwd()), spoolDir } });
    try {
      const first = await post("/api/v1/decide", { operation: "SEND_SMS", region: "EU", requestId: "reuse-table", attributes: { compliance: "gdpr" } });
      expect(first.status).toBe(200);
      const region = await post(
        "/api/v1/decide",
        { operation: "SEND_SMS", region: "NA", requestId: "reuse-table", attributes: { compliance: "gdpr" } },
        {},
        other.url,
      );
      expect(region.status).toBe(422);
      expect(region.json.error.code).toBe("idempotency_key_reused");
      const attributes = await post("/api/v1/decide", { operation: "SEND_SMS", region: "EU", requestId: "reuse-table" }, {}, other.url);
      expect(attributes.status).toBe(422);
      const same = await post(
        "/api/v1/decide",
        { operation: "SEND_SMS", region: "EU", requestId: "reuse-table", attributes: { compliance: "gdpr" } },
        {},
        other.url,
      );
      expect(same.status).toBe(200);
      expect(same.json.decisionId).toBe(first.json.decisionId);
    } finally {
      await other.close();
      await rm(spoolDir, { recursive: true, force: true });
    }
  });

  it("execute: the same Idempotency-Key with another body gets 422, sequentially and concurrently, and calls no provider again", async () => {
    const before = upstreamCalls();
    const key = { "idempotency-key": "exec-reuse-1" };
    const first = await post("/api/v1/execute/LLM_CHAT", chat("first"), key);
    expect(first.status).toBe(200);
    const other = await post("/api/v1/execute/LLM_CHAT", chat("second"), key);
    expect(other.status).toBe(422);
    expect(other.json.error).toMatchObject({ code: "idempotency_key_reused", fields: [{ path: "idempotency-key" }] });
    const again = await post("/api/v1/execute/LLM_CHAT", chat("first"), key);
    expect(again.status).toBe(200);
    expect(again.headers.get("idempotent-replayed")).toBe("true");
    expect(upstreamCalls() - before).toBe(1);

    const concurrent = await Promise.all(
      Array.from({ length: 20 }, (_, i) => post("/api/v1/execute/LLM_CHAT", chat(i % 2 === 0 ? "even" : "odd"), { "idempotency-key": "exec-reuse-2" })),
    );
    const ok = concurrent.filter((r) => r.status === 200);
    expect(ok).toHaveLength(10);
    expect(concurrent.filter((r) => r.status === 422)).toHaveLength(10);
    expect(new Set(ok.map((r) => r.json.decisionId)).size).toBe(1);
    expect(upstreamCalls() - before).toBe(2);
  });
});

describe("execute job results", () => {
  it("are readable only by the key that queued the job; another key gets 404", async () => {
    const owner = await createApiKey(env.prisma, SYSTEM_ACTOR, { name: "queuer", scopes: ["decide"], operationKeys: [] });
    const stranger = await createApiKey(env.prisma, SYSTEM_ACTOR, { name: "stranger", scopes: ["decide"], operationKeys: [] });
    const queued = await post(
      "/api/v1/execute/SEND_SMS",
      { region: "EU", input: { to: "1", text: "t" }, attributes: { providers: "none_of_them" } },
      { authorization: `Bearer ${owner.key}` },
    );
    expect(queued.status).toBe(202);
    const poll = (key: string) => fetch(`${env.server.url}${queued.json.pollUrl}`, { headers: { authorization: `Bearer ${key}` } });
    const theirs = await poll(stranger.key);
    expect(theirs.status).toBe(404);
    expect(((await theirs.json()) as any).error.code).toBe("unknown_job");
    const own = await poll(owner.key);
    expect(own.status).toBe(200);
    expect(((await own.json()) as any).status).toBe("queued");
  });
});

/** A raw connection: what it received, and when the server closed it. */
function rawClient(port: number) {
  const socket = net.connect(port, "127.0.0.1");
  let received = "";
  socket.on("data", (d: Buffer) => (received += d.toString()));
  socket.on("error", () => {});
  const closed = new Promise<void>((resolve) => socket.once("close", () => resolve()));
  return { socket, closed, received: () => received };
}

/** Writes one byte every `everyMs` until the socket closes. */
function trickle(socket: net.Socket, text: string, everyMs: number): void {
  let i = 0;
  const timer = setInterval(() => {
    if (socket.destroyed || i >= text.length) return clearInterval(timer);
    socket.write(text[i++]!);
  }, everyMs);
  socket.once("close", () => clearInterval(timer));
}

const port = () => Number(new URL(env.server.url).port);

describe("slow clients", () => {
  it("incomplete headers get 408 with the JSON error body and the connection is closed", async () => {
    const c = rawClient(port());
    c.socket.write("POST /api/v1/decide HTTP/1.1\r\nhost: x\r\n");
    trickle(c.socket, "x-slow: " + "a".repeat(1_000), 100);
    await c.closed;
    expect(c.received()).toMatch(/^HTTP\/1\.1 408 /);
    expect(JSON.parse(c.received().split("\r\n\r\n")[1]!)).toMatchObject({ error: { code: "request_timeout" } });
  });

  it("a body trickled byte by byte gets 408, is not logged as an error, and 200 of them do not keep a decide from being answered", async () => {
    const stderr = vi.spyOn(process.stderr, "write");
    try {
      const body = JSON.stringify({ operation: "SEND_SMS", region: "EU", requestId: "slow-body" });
      const head = `POST /api/v1/decide HTTP/1.1\r\nhost: x\r\ncontent-type: application/json\r\ncontent-length: ${body.length}\r\n\r\n`;
      const clients = Array.from({ length: 200 }, () => {
        const c = rawClient(port());
        c.socket.write(head);
        trickle(c.socket, body, 200);
        return c;
      });
      const meanwhile = await post("/api/v1/decide", { operation: "SEND_SMS", region: "EU", requestId: "not-slow" });
      expect(meanwhile.status).toBe(200);
      await Promise.all(clients.map((c) => c.closed));
      const answers = clients.map((c) => c.received());
      expect(answers.filter((a) => /^HTTP\/1\.1 408 /.test(a) && a.includes('"code":"request_timeout"'))).toHaveLength(200);
      expect(await decisionRows("slow-body")).toEqual([]);
      expect(stderr.mock.calls.map((call) => String(call[0])).filter((line) => line.includes("unexpected error"))).toEqual([]);
    } finally {
      stderr.mockRestore();
    }
  });
});
