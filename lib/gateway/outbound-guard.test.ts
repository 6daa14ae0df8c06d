import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { freePort } from "../../test/support/free-port";
import { createGatewayWorld, TEST_SECRETS, type TGatewayWorld } from "../../test/support/gateway-fixtures";
import { startGatewayServer, type TGatewayServer } from "../../test/support/gateway-server";

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- response shapes are asserted field by field
type TJson = any;

let world: TGatewayWorld;
let server: TGatewayServer;
let spoolDir: string;
const logged: string[] = [];
let credentialRefs: Array<{ providerKey: string; credentialRef: string | null }>;

beforeAll(async () => {
  world = await createGatewayWorld();
  spoolDir = await mkdtemp(path.join(tmpdir(), "switchyard-outbound-"));
  server = await startGatewayServer({
    databaseUrl: world.db.url,
    prisma: world.prisma,
    spoolDir,
    env: { ...TEST_SECRETS },
    log: (line) => logged.push(line),
    gateway: { backoff: { baseMs: 2, capMs: 10 } },
  });
  credentialRefs = await world.prisma.providerAdapter.findMany({ select: { providerKey: true, credentialRef: true } });
});
afterAll(async () => {
  await server?.close();
  await Promise.all(Object.values(world?.mocks ?? {}).map((m) => m.close()));
  await world?.prisma.$disconnect();
  await world?.db.drop();
  await rm(spoolDir, { recursive: true, force: true });
});
beforeEach(async () => {
  for (const { providerKey, credentialRef } of credentialRefs) await world.prisma.providerAdapter.update({ where: { providerKey }, data: { credentialRef } });
  for (const key of ["provider_A", "provider_B"] as const) {
    world.mocks[key].setAlways(null);
    world.mocks[key].requests.length = 0;
    await world.prisma.providerAdapter.update({ where: { providerKey: key }, data: { baseUrl: world.mocks[key].url } });
  }
  await server.gateway.reload();
  logged.length = 0;
});

async function execute(operation: string, body: unknown): Promise<{ status: number; json: TJson; text: string }> {
  const res = await fetch(`${server.url}/api/v1/execute/${operation}`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify(body),
  });
  const text = await res.text();
  return { status: res.status, json: JSON.parse(text) as TJson, text };
}

const sms = (input: Record<string, unknown>) => ({ region: "EU", input: { text: "code 123456", ...input } });
const calls = () => world.mocks.provider_A.requests.length + world.mocks.provider_B.requests.length;

/** The causes execute stored for the console, by provider, once its outcome writes are done. */
async function storedDetails(decisionId: string): Promise<Record<string, string | null>> {
  await server.gateway.flush();
  const rows = await world.prisma.providerCallOutcome.findMany({ where: { decisionId }, select: { providerKey: true, detail: true } });
  return Object.fromEntries(rows.map((r) => [r.providerKey, r.detail]));
}

/** What a data-plane reader of the decision gets back. */
async function dataPlaneDecision(decisionId: string): Promise<string> {
  const res = await fetch(`${server.url}/api/v1/decisions/${decisionId}`);
  expect(res.status).toBe(200);
  return res.text();
}

/**
 * Runs `fn` as production does: no loopback allowance (tests have one, so mocks on 127.0.0.1
 * work). The adapters carry no credential, so the address check is what stops the call, not a
 * credential's host binding.
 */
async function asProduction<T>(fn: () => Promise<T>): Promise<T> {
  await world.prisma.providerAdapter.updateMany({ data: { credentialRef: null } });
  await server.gateway.reload();
  const env = process.env as Record<string, string | undefined>;
  const before = env.NODE_ENV;
  env.NODE_ENV = "production";
  try {
    return await fn();
  } finally {
    env.NODE_ENV = before;
  }
}

describe("execute's outbound calls (SSRF)", () => {
  it("tells the caller only that a connection failed; the refused port and code go to the log", async () => {
    const closed = await freePort();
    await world.prisma.providerAdapter.update({ where: { providerKey: "provider_A" }, data: { baseUrl: `http://127.0.0.1:${closed}` } });
    await server.gateway.reload();
    world.mocks.provider_B.setAlways({ type: "status", status: 503 });
    const r = await execute("SEND_SMS", sms({ to: "+4915112345678" }));
    expect(r.status).toBe(503);
    const a = (r.json.attempts as TJson[]).find((x) => x.provider === "provider_A");
    expect(a).toMatchObject({ errorClass: "transient", outcomeErrorClass: "network", detail: "the connection to the provider failed" });
    expect(r.text).not.toMatch(/ECONNREFUSED|127\.0\.0\.1|localhost|:\d{4,5}\b/);
    expect(logged.join("\n")).toMatch(new RegExp(`provider_A failed for decision ${r.json.decisionId}: .*ECONNREFUSED`));
  });

  it("refuses at call time an adapter row that points at loopback when loopback is not allowed, without connecting", async () => {
    const r = await asProduction(() => execute("SEND_SMS", sms({ to: "+4915112345678" })));
    expect(r.status).toBe(503);
    expect(calls()).toBe(0);
    expect((r.json.attempts as TJson[]).map((x) => x.detail)).toEqual(["the connection to the provider failed", "the connection to the provider failed"]);
    expect(logged.join("\n")).toMatch(/127\.0\.0\.1 is a loopback address/);
  });

  it("refuses a streamed call to loopback the same way", async () => {
    const before = Object.values(world.mocks).reduce((n, m) => n + m.requests.length, 0);
    const r = await asProduction(() =>
      fetch(`${server.url}/api/v1/execute/LLM_CHAT`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ region: "EU", input: { messages: [{ role: "user", content: "hi" }], maxTokens: 8 }, stream: true }),
      }).then((res) => res.text()),
    );
    expect(Object.values(world.mocks).reduce((n, m) => n + m.requests.length, 0)).toBe(before);
    expect(r).not.toMatch(/ECONNREFUSED|127\.0\.0\.1/);
    expect(logged.join("\n")).toMatch(/127\.0\.0\.1 is a loopback address/);
  });

  it("maps a provider's redirect to a provider failure instead of a Location-less 3xx for the caller", async () => {
    for (const key of ["provider_A", "provider_B"] as const)
      world.mocks[key].setAlways({ type: "status", status: 302, headers: { location: "http://169.254.169.254/" } });
    const r = await execute("SEND_SMS", sms({ to: "+4915112345678" }));
    expect(r.status).toBe(503);
    expect(r.json.error.code).toBe("all_attempts_failed");
    expect((r.json.attempts as TJson[]).map((x) => [x.httpStatus, x.errorClass])).toEqual([
      [302, "transient"],
      [302, "transient"],
    ]);
    // The drilldown names where it pointed (scheme and host only); the caller is not told.
    expect(Object.values(await storedDetails(r.json.decisionId))).toEqual(["redirect 302 to http://169.254.169.254", "redirect 302 to http://169.254.169.254"]);
    expect(r.text).not.toContain("169.254");
  });
});

describe("http_json path templates (path traversal)", () => {
  it("refuses `..` in a path input with a 422 naming the field, and calls no provider", async () => {
    const r = await execute("SEND_SMS", sms({ to: ".." }));
    expect(r.status).toBe(422);
    expect(r.json.error.fields).toEqual([expect.objectContaining({ path: "input.to" })]);
    expect(calls()).toBe(0);
  });

  it("refuses encoded and double-encoded slashes the same way", async () => {
    for (const to of ["a%2f..%2fadmin", "%252e%252e", "a\\b"]) {
      const r = await execute("SEND_SMS", sms({ to }));
      expect([to, r.status, r.json.error.fields[0].path]).toEqual([to, 422, "input.to"]);
    }
    expect(calls()).toBe(0);
  });
});

// Last: their failed attempts count towards the providers' breakers.
describe("the drilldown's attempt detail (issue 35 item 7)", () => {
  it("stores the refused address and port on the attempt's outcome for the drilldown, not in the data-plane decision", async () => {
    const closed = await freePort();
    await world.prisma.providerAdapter.update({ where: { providerKey: "provider_A" }, data: { baseUrl: `http://127.0.0.1:${closed}` } });
    await server.gateway.reload();
    world.mocks.provider_B.setAlways({ type: "status", status: 503 });
    const r = await execute("SEND_SMS", sms({ to: "+4915112345678" }));
    expect(r.status).toBe(503);
    const details = await storedDetails(r.json.decisionId);
    expect(details.provider_A).toMatch(new RegExp(`ECONNREFUSED.* 127\\.0\\.0\\.1:${closed}$`));
    // An HTTP answer needs no transport cause: its status is in the row already.
    expect(details.provider_B).toBeNull();
    const read = await dataPlaneDecision(r.json.decisionId);
    expect(read).toContain('"providerCalls":[');
    expect(read).not.toMatch(/ECONNREFUSED|127\.0\.0\.1|"detail":"ECONN/);
  });

  it("stores a blocked address as the cause of each refused attempt", async () => {
    const r = await asProduction(() => execute("SEND_SMS", sms({ to: "+4915112345678" })));
    expect(r.status).toBe(503);
    const details = await storedDetails(r.json.decisionId);
    expect(Object.keys(details).sort()).toEqual(["provider_A", "provider_B"]);
    for (const d of Object.values(details)) expect(d).toMatch(/^ERR_PROVIDER_ADDRESS_FORBIDDEN: 127\.0\.0\.1 is a loopback address/);
    expect(await dataPlaneDecision(r.json.decisionId)).not.toMatch(/loopback|127\.0\.0\.1|FORBIDDEN/);
  });

  it("stores the cause of a streamed attempt the same way", async () => {
    const res = await asProduction(() =>
      fetch(`${server.url}/api/v1/execute/LLM_CHAT`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ region: "EU", input: { messages: [{ role: "user", content: "hi" }], maxTokens: 8 }, stream: true }),
      }),
    );
    const text = await res.text();
    const decisionId = /"decisionId":"([0-9a-f-]{36})"/.exec(text)?.[1] ?? res.headers.get("x-switchyard-decision-id") ?? "";
    const details = Object.values(await storedDetails(decisionId));
    expect(details.length).toBeGreaterThan(0);
    for (const d of details) expect(d).toMatch(/^ERR_PROVIDER_ADDRESS_FORBIDDEN: 127\.0\.0\.1 is a loopback address/);
    expect(text).not.toMatch(/loopback|127\.0\.0\.1/);
  });
});
