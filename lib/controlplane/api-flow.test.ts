import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createPrisma, type PrismaClient } from "../db/client";
import { createTestDatabase, type TTestDatabase } from "../../test/support/database";
import { verifyApiKey } from "../auth/verify-api-key";
import * as factorLists from "../../app/api/control/factor-lists/route";
import * as version from "../../app/api/control/factor-lists/[id]/route";
import * as submit from "../../app/api/control/factor-lists/[id]/submit/route";
import * as approve from "../../app/api/control/factor-lists/[id]/approve/route";
import * as activate from "../../app/api/control/factor-lists/[id]/activate/route";
import * as yamlExport from "../../app/api/control/factor-lists/[id]/yaml/route";
import * as overrides from "../../app/api/control/overrides/route";
import * as apiKeys from "../../app/api/control/api-keys/route";
import * as auditExport from "../../app/api/control/audit/export/route";
import * as auditVerify from "../../app/api/control/audit/verify/route";
import { WEIGHTS_YAML, makeSessionCookie, makeUser, seedCatalog } from "../../test/support/controlplane-fixtures";

const ORIGIN = "http://switchyard.test";
type THandler = (req: Request, ctx: { params: Promise<Record<string, string>> }) => Promise<Response>;

let db: TTestDatabase;
let prisma: PrismaClient;
const cookie: Record<string, string> = {};

beforeAll(async () => {
  db = await createTestDatabase();
  process.env.DATABASE_URL = db.url;
  prisma = createPrisma(db.url);
  await seedCatalog(prisma);
  for (const role of ["policy_author", "approver", "on_call", "admin", "viewer"] as const) {
    cookie[role] = await makeSessionCookie(prisma, (await makeUser(prisma, [role])).user.id);
  }
});

afterAll(async () => {
  await prisma.$disconnect();
  await db.drop();
});

async function call(
  handler: unknown,
  as: string,
  opts: { method?: string; path?: string; body?: string; contentType?: string; params?: Record<string, string> } = {},
) {
  const method = opts.method ?? (opts.body === undefined ? "GET" : "POST");
  const req = new Request(`${ORIGIN}${opts.path ?? "/api/control/x"}`, {
    method,
    headers: {
      host: "switchyard.test",
      origin: ORIGIN,
      cookie: cookie[as]!,
      "content-type": opts.contentType ?? "application/json",
      "x-switchyard-client-ip": "192.0.2.7",
    },
    ...(opts.body !== undefined ? { body: opts.body } : {}),
  });
  return (handler as THandler)(req, { params: Promise.resolve(opts.params ?? {}) });
}

describe("control-plane API, end to end through the route handlers", () => {
  it("imports YAML, reviews, activates, exports the same YAML, and the audit trail verifies", async () => {
    const yaml = WEIGHTS_YAML();
    const created = await call(factorLists.POST, "policy_author", {
      path: "/api/control/factor-lists?changeNote=rebalance",
      body: yaml,
      contentType: "application/yaml",
    });
    expect(created.status).toBe(201);
    const { version: v } = (await created.json()) as { version: { id: string; changeNote: string } };
    expect(v.changeNote).toBe("rebalance");
    const params = { id: v.id };

    expect((await call(submit.POST, "policy_author", { body: "", params })).status).toBe(200);
    expect((await call(approve.POST, "policy_author", { body: "{}", params })).status).toBe(403);
    const notJson = await call(approve.POST, "approver", { body: "not json", params });
    expect([notJson.status, ((await notJson.json()) as { error: { code: string } }).error.code]).toEqual([400, "malformed"]);
    expect((await call(approve.POST, "approver", { body: JSON.stringify({ comment: "ok" }), params })).status).toBe(200);
    const detail = (await (await call(version.GET, "viewer", { params })).json()) as { policy: { lockVersion: number } };
    const act = await call(activate.POST, "approver", { body: JSON.stringify({ expectedLockVersion: detail.policy.lockVersion }), params });
    expect(act.status).toBe(200);

    const exported = await call(yamlExport.GET, "viewer", { params });
    expect(exported.headers.get("content-type")).toContain("application/yaml");
    expect(await exported.text()).toBe(yaml);

    const csv = await call(auditExport.GET, "viewer", { path: "/api/control/audit/export?format=csv&targetType=factor_list_version" });
    const lines = (await csv.text()).trimEnd().split("\r\n");
    expect(lines).toHaveLength(5);
    expect(lines[1]).toContain("factor_list.activate");
    expect(lines[1]).toContain("192.0.2.7");
    expect(await (await call(auditVerify.GET, "viewer")).json()).toMatchObject({ ok: true });
  });

  it("answers 422 naming every field: invalid factor list, override with past expiry and unlisted pin", async () => {
    const bad = await call(factorLists.POST, "policy_author", {
      body: JSON.stringify({ document: { operation: "SEND_SMS", gates: ["nope"], safety: { max_traffic_shift_per_minute: 0 } } }),
    });
    expect(bad.status).toBe(422);
    const body = (await bad.json()) as { error: { fields: { path: string }[] } };
    expect(body.error.fields.map((f) => f.path)).toEqual(expect.arrayContaining(["gates[0]", "safety.max_traffic_shift_per_minute"]));

    const override = await call(overrides.POST, "on_call", {
      body: JSON.stringify({ kind: "provider_pin", operationKey: "SEND_SMS", providerKey: "provider_Q", reason: "pin", expiresAt: "2001-01-01T00:00:00Z" }),
    });
    expect(override.status).toBe(422);
    expect(((await override.json()) as { error: { fields: { path: string }[] } }).error.fields.map((f) => f.path).sort()).toEqual(["expiresAt", "providerKey"]);
    const noReason = await call(overrides.POST, "on_call", { body: JSON.stringify({ kind: "routing_kill_switch", operationKey: "SEND_SMS" }) });
    expect(noReason.status).toBe(400);
    expect(((await noReason.json()) as { error: { fields: { path: string }[] } }).error.fields.map((f) => f.path)).toEqual(["reason"]);
  });

  it("creates an API key that works on the data plane and is never shown again", async () => {
    const res = await call(apiKeys.POST, "admin", { body: JSON.stringify({ name: "checkout", scopes: ["decide"], operationKeys: ["SEND_SMS"] }) });
    expect(res.status).toBe(201);
    expect(res.headers.get("cache-control")).toBe("no-store");
    const { key } = (await res.json()) as { key: string };
    expect((await verifyApiKey(prisma, key, "decide", "SEND_SMS")).ok).toBe(true);
    const listed = await (await call(apiKeys.GET, "viewer")).text();
    expect(listed).not.toContain(key.slice(12));
    expect(listed).not.toContain("keyHash");
  });
});
