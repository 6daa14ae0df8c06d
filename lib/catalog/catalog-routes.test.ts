import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createPrisma, type PrismaClient } from "../db/client";
import { createTestDatabase, type TTestDatabase } from "../../test/support/database";
import { createApiKey } from "../controlplane/api-keys/create-api-key";
import { createFactorListDraft } from "../controlplane/factor-lists/create-factor-list-draft";
import { demoSmsPolicyYaml } from "../demo/seed-demo";
import { makeSessionCookie, makeUser, seedCatalog } from "../../test/support/controlplane-fixtures";

/** The catalogue's HTTP edges: status codes, the error shape's fields, and the control-scoped key. */
const ORIGIN = "http://switchyard.test";
type THandler = (req: Request, ctx: { params: Promise<Record<string, string>> }) => Promise<Response>;

let db: TTestDatabase;
let prisma: PrismaClient;
let adminCookie: string;
let routes: {
  providers: { POST: THandler };
  provider: { PATCH: THandler };
  apply: { POST: THandler };
  exportRoute: { GET: THandler };
  region: { PUT: THandler; DELETE: THandler };
  certification: { PUT: THandler; DELETE: THandler };
};
let controlKey: string;
let decideKey: string;

beforeAll(async () => {
  db = await createTestDatabase();
  process.env.DATABASE_URL = db.url;
  prisma = createPrisma(db.url);
  await seedCatalog(prisma);
  const admin = await makeUser(prisma, ["admin"]);
  adminCookie = await makeSessionCookie(prisma, admin.user.id);
  controlKey = (await createApiKey(prisma, admin.actor, { name: "cli", scopes: ["control"], operationKeys: [] })).key;
  decideKey = (await createApiKey(prisma, admin.actor, { name: "svc", scopes: ["decide"], operationKeys: [] })).key;
  routes = {
    providers: await import("@/app/api/control/catalog/providers/route"),
    provider: await import("@/app/api/control/catalog/providers/[key]/route"),
    apply: await import("@/app/api/control/apply/route"),
    exportRoute: await import("@/app/api/control/export/route"),
    region: await import("@/app/api/control/catalog/regions/[name]/route"),
    certification: await import("@/app/api/control/catalog/certifications/[name]/route"),
  } as unknown as typeof routes;
});

afterAll(async () => {
  await prisma.$disconnect();
  await db.drop();
});

function call(handler: THandler, method: string, url: string, opts: { body?: string; headers?: Record<string, string>; params?: Record<string, string> } = {}) {
  const req = new Request(`${ORIGIN}${url}`, {
    method,
    headers: { host: new URL(ORIGIN).host, "content-type": "application/json", ...(opts.headers ?? {}) },
    ...(opts.body !== undefined ? { body: opts.body } : {}),
  });
  return handler(req, { params: Promise.resolve(opts.params ?? {}) });
}

const asAdmin = { cookie: "", origin: ORIGIN };

describe("catalogue routes", () => {
  it("POST /catalog/providers: 201, and refusals name each field", async () => {
    asAdmin.cookie = adminCookie;
    const ok = await call(routes.providers.POST, "POST", "/api/control/catalog/providers", {
      headers: asAdmin,
      body: JSON.stringify({ key: "sinch", displayName: "Sinch", regions: ["EU"], certifications: ["gdpr"] }),
    });
    expect(ok.status).toBe(201);
    const bad = await call(routes.providers.POST, "POST", "/api/control/catalog/providers", {
      headers: asAdmin,
      body: JSON.stringify({ key: "x y", displayName: "", regions: [], credentialRef: "hunter2" }),
    });
    const body = (await bad.json()) as { error: { code: string; fields: { path: string }[] } };
    expect([400, 422]).toContain(bad.status);
    expect(body.error.fields.map((f) => f.path).sort()).toEqual(["credentialRef", "displayName", "key", "regions"]);
  });

  it("PATCH /catalog/providers/:key: 202 for a change that waits for compliance, 409 naming the policy for a disable", async () => {
    const held = await call(routes.provider.PATCH, "PATCH", "/api/control/catalog/providers/provider_C", {
      headers: asAdmin,
      params: { key: "provider_C" },
      body: JSON.stringify({ certifications: ["soc2", "gdpr"] }),
    });
    expect(held.status).toBe(202);
    expect(((await held.json()) as { status: string }).status).toBe("pending");
    const inUse = await call(routes.provider.PATCH, "PATCH", "/api/control/catalog/providers/provider_A", {
      headers: asAdmin,
      params: { key: "provider_A" },
      body: JSON.stringify({ enabled: false }),
    });
    const body = (await inUse.json()) as { error: { code: string; message: string; fields: { path: string; message: string }[] } };
    expect([inUse.status, body.error.code]).toEqual([409, "provider_in_use"]);
    expect(body.error.fields).toEqual([{ path: "enabled", message: "named by SEND_SMS v1 (active)" }]);
  });

  it("PATCH of one field changes that field only: the others keep their values, not their defaults", async () => {
    const before = await prisma.provider.findUniqueOrThrow({ where: { key: "provider_B" } });
    expect(before.complianceTags.length).toBeGreaterThan(0);
    const quotas = [{ unit: "requests", limit: 500, windowSeconds: 3_600, reset: "fixed" }];
    const r = await call(routes.provider.PATCH, "PATCH", "/api/control/catalog/providers/provider_B", {
      headers: asAdmin,
      params: { key: "provider_B" },
      body: JSON.stringify({ quotas }),
    });
    // Before, zod 4's .partial() filled certifications with [] and costPerRequest with 0: a compliance change held for review.
    expect(r.status, await r.clone().text()).toBe(200);
    expect(((await r.json()) as { status: string }).status).toBe("applied");
    const after = await prisma.provider.findUniqueOrThrow({ where: { key: "provider_B" } });
    expect(after.quotas).toEqual(quotas);
    expect(after.complianceTags).toEqual(before.complianceTags);
    expect(after.costPerRequest.toString()).toBe(before.costPerRequest.toString());
    expect(after.credentialRef).toBe(before.credentialRef);
  });

  it("export and apply take an API key with the control scope, and refuse others", async () => {
    const exported = await call(routes.exportRoute.GET, "GET", "/api/control/export", { headers: { authorization: `Bearer ${controlKey}` } });
    expect(exported.status).toBe(200);
    const yaml = await exported.text();
    expect(yaml).toContain("key: provider_A");
    const dry = await call(routes.apply.POST, "POST", "/api/control/apply?dryRun=1", {
      headers: { authorization: `Bearer ${controlKey}`, "content-type": "application/yaml" },
      body: yaml,
    });
    expect(dry.status).toBe(200);
    expect(((await dry.json()) as { summary: string }).summary).toBe("no changes");
    const wrongScope = await call(routes.apply.POST, "POST", "/api/control/apply", { headers: { authorization: `Bearer ${decideKey}` }, body: yaml });
    expect(wrongScope.status).toBe(403);
    const unknown = await call(routes.exportRoute.GET, "GET", "/api/control/export", { headers: { authorization: "Bearer sy_00000000_nope" } });
    expect(unknown.status).toBe(401);
  });

  it("PUT /catalog/regions/{name} declares a region; a provider naming an undeclared one is 422 listing the known ones", async () => {
    asAdmin.cookie = adminCookie;
    const body = JSON.stringify({ key: "mena_sms", displayName: "MENA SMS", regions: ["MENA"] });
    const before = await call(routes.providers.POST, "POST", "/api/control/catalog/providers", { headers: asAdmin, body });
    expect(before.status).toBe(422);
    expect(await before.json()).toMatchObject({
      error: { code: "invalid", fields: [{ path: "regions[0]", message: 'unknown region "MENA"; known regions: APAC, EU, LATAM, NA' }] },
    });
    const bad = await call(routes.region.PUT, "PUT", "/api/control/catalog/regions/MENA", {
      headers: asAdmin,
      body: '{"requires": ["gpdr"]}',
      params: { name: "MENA" },
    });
    expect([bad.status, ((await bad.json()) as { error: { fields: { path: string }[] } }).error.fields.map((f) => f.path)]).toEqual([422, ["requires[0]"]]);
    const put = await call(routes.region.PUT, "PUT", "/api/control/catalog/regions/MENA", {
      headers: asAdmin,
      body: '{"requires": ["gdpr"]}',
      params: { name: "MENA" },
    });
    expect([put.status, ((await put.json()) as { status: string }).status]).toEqual([200, "applied"]);
    expect((await call(routes.providers.POST, "POST", "/api/control/catalog/providers", { headers: asAdmin, body })).status).toBe(201);
  });

  it("DELETE /catalog/regions|certifications/{name}: a misspelling goes; a name still in use is 409 listing what names it", async () => {
    asAdmin.cookie = adminCookie;
    const put = (route: THandler, kind: string, name: string, body: string) =>
      call(route, "PUT", `/api/control/catalog/${kind}/${name}`, { headers: asAdmin, body, params: { name } });
    const del = (route: THandler, kind: string, name: string) =>
      call(route, "DELETE", `/api/control/catalog/${kind}/${name}`, { headers: asAdmin, params: { name } });
    expect((await put(routes.certification.PUT, "certifications", "gpdr", '{"description": "typo"}')).status).toBe(200);
    expect((await put(routes.region.PUT, "regions", "EUX", '{"requires": ["gpdr"]}')).status).toBe(200);

    // The misspelt certification is required by the misspelt region: refused until the region goes.
    const refused = await del(routes.certification.DELETE, "certifications", "gpdr");
    expect([refused.status, await refused.json()]).toEqual([
      409,
      { error: { code: "declaration_in_use", message: "certification gpdr is still named by region EUX; change those first" } },
    ]);
    const gone = await del(routes.region.DELETE, "regions", "EUX");
    expect([gone.status, await gone.json()]).toEqual([200, { status: "deleted", name: "EUX" }]);
    expect((await del(routes.certification.DELETE, "certifications", "gpdr")).status).toBe(200);
    expect(await prisma.region.findUnique({ where: { name: "EUX" } })).toBeNull();
    expect(await prisma.certification.findUnique({ where: { name: "gpdr" } })).toBeNull();
    const audit = await prisma.auditEntry.findMany({
      where: { action: { in: ["catalog.region.delete", "catalog.certification.delete"] } },
      orderBy: { seq: "asc" },
    });
    expect(audit.map((a) => [a.action, a.targetId, a.before])).toEqual([
      ["catalog.region.delete", "EUX", { name: "EUX", requires: ["gpdr"], version: 1 }],
      ["catalog.certification.delete", "gpdr", { name: "gpdr", description: "typo" }],
    ]);

    // EU is served by the demo's providers and required by SEND_SMS.
    const inUse = await del(routes.region.DELETE, "regions", "EU");
    expect([inUse.status, ((await inUse.json()) as { error: { message: string } }).error.message]).toEqual([
      409,
      "region EU is still named by provider provider_A; provider provider_B; provider provider_C; provider sinch; operation SEND_SMS; change those first",
    ]);
    expect(await prisma.region.findUnique({ where: { name: "EU" } })).not.toBeNull();

    // A draft factor list with a rule for a region is a reference too: it could still go live.
    expect((await put(routes.region.PUT, "regions", "ANZ", '{"requires": []}')).status).toBe(200);
    const author = await makeUser(prisma, ["policy_author"]);
    const draft = await createFactorListDraft(prisma, author.actor, {
      yaml: `${demoSmsPolicyYaml().trimEnd()}\nregions:\n  ANZ: {required_compliance: [soc2]}\n`,
      changeNote: "ANZ rule",
    });
    const byDraft = await del(routes.region.DELETE, "regions", "ANZ");
    expect([byDraft.status, ((await byDraft.json()) as { error: { message: string } }).error.message]).toEqual([
      409,
      `region ANZ is still named by factor list SEND_SMS v${draft.version} (draft); change those first`,
    ]);
    expect((await del(routes.region.DELETE, "regions", "NOWHERE")).status).toBe(404);
  });
});
