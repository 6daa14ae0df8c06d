import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { createTestDatabase, type TTestDatabase } from "@/test/support/database";
import { createApiKey } from "@/lib/controlplane/api-keys/create-api-key";
import { revokeApiKey } from "@/lib/controlplane/api-keys/revoke-api-key";
import { forgetApiKey } from "@/lib/auth/verify-api-key";
import { SYSTEM_ACTOR } from "@/lib/audit/actor";
import { startStandaloneDataPlane, type TStandaloneServer } from "../../test/support/standalone-dataplane";
import { dataPlaneSettings } from "./settings";
import { createAuthenticator } from "../edge/authenticate";
import type { IncomingMessage } from "node:http";

let db: TTestDatabase;
let server: TStandaloneServer;
let spoolDir: string;

beforeAll(async () => {
  db = await createTestDatabase();
  spoolDir = await mkdtemp(path.join(tmpdir(), "sy-spool-"));
  // Not the demo: no anonymous access and no bootstrap key, so only scoped keys get in.
  server = await startStandaloneDataPlane({
    databaseUrl: db.url,
    embeddedDatabase: false,
    settings: { ...dataPlaneSettings({}, process.cwd()), apiKey: undefined, spoolDir },
  });
});

afterAll(async () => {
  await server?.close();
  await db?.drop();
  await rm(spoolDir, { recursive: true, force: true });
});

async function decide(key: string | null, operation = "SEND_SMS") {
  const res = await fetch(`${server.url}/api/v1/decide`, {
    method: "POST",
    headers: { "content-type": "application/json", ...(key ? { authorization: `Bearer ${key}` } : {}) },
    body: JSON.stringify({ operation, region: "EU", requestId: `r-${Math.random()}` }),
  });
  return { status: res.status, body: (await res.json()) as { error?: { code: string; message: string } } };
}

describe("data-plane calls with governance-issued API keys", () => {
  it("accepts a key with the decide scope and refuses one without it, or none at all", async () => {
    const ok = await createApiKey(server.prisma, SYSTEM_ACTOR, { name: "checkout", scopes: ["decide"], operationKeys: [] });
    const outcomesOnly = await createApiKey(server.prisma, SYSTEM_ACTOR, { name: "reporter", scopes: ["outcomes"], operationKeys: [] });
    expect((await decide(ok.key)).status).toBe(200);
    const refused = await decide(outcomesOnly.key);
    expect(refused.status).toBe(403);
    expect(refused.body.error?.message).toContain("decide scope");
    expect((await decide(null)).status).toBe(401);
    expect((await decide("sy_00000000_not-a-real-key")).status).toBe(401);
  });

  it("keeps an operation-restricted key to its operations", async () => {
    await server.prisma.operation.create({ data: { key: "SEND_EMAIL", description: "email", criticality: "medium" } });
    const smsOnly = await createApiKey(server.prisma, SYSTEM_ACTOR, { name: "sms", scopes: ["decide"], operationKeys: ["SEND_SMS"] });
    expect((await decide(smsOnly.key, "SEND_SMS")).status).toBe(200);
    const other = await decide(smsOnly.key, "SEND_EMAIL");
    expect(other.status).toBe(403);
    expect(other.body.error?.message).toContain("SEND_EMAIL");
  });

  it("stops accepting a key once it is revoked", async () => {
    const k = await createApiKey(server.prisma, SYSTEM_ACTOR, { name: "temp", scopes: ["decide"], operationKeys: [] });
    expect((await decide(k.key)).status).toBe(200);
    await revokeApiKey(server.prisma, SYSTEM_ACTOR, k.apiKey.id, "rotated");
    forgetApiKey();
    const after = await decide(k.key);
    expect(after.status).toBe(401);
    expect(after.body.error?.message).toContain("revoked");
  });
});

describe("a scoped key that cannot be checked", () => {
  it("is answered 503 with Retry-After, naming the authorization header", async () => {
    const auth = createAuthenticator({
      apiKey: undefined,
      allowAnonymousWithoutKey: false,
      verifyScopedKey: async () => ({ ok: false, status: 503, reason: "cannot verify the API key: the database did not answer" }),
    });
    const result = await auth({ headers: { authorization: "Bearer sy_00000000_x" } } as IncomingMessage, "decide");
    expect(result).toEqual({
      ok: false,
      status: 503,
      body: {
        error: {
          code: "auth_unavailable",
          message: "cannot verify the API key: the database did not answer",
          fields: [{ path: "authorization", message: "cannot verify the API key: the database did not answer" }],
        },
      },
      headers: { "retry-after": "1" },
    });
  });
});
