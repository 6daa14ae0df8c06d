import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createPrisma, type PrismaClient } from "../db/client";
import { createTestDatabase, type TTestDatabase } from "../../test/support/database";
import { createApiKey } from "../controlplane/api-keys/create-api-key";
import { disableUser } from "../controlplane/users/disable-user";
import { enableUser } from "../controlplane/users/enable-user";
import { listApiKeys } from "../controlplane/api-keys/list-api-keys";
import { setUserRoles } from "../controlplane/users/set-user-roles";
import { makeUser, seedCatalog } from "../../test/support/controlplane-fixtures";

/** Issue 35 item 2: a control key acts with at most its creator's current permissions. */
const ORIGIN = "http://switchyard.test";
type THandler = (req: Request, ctx: { params: Promise<Record<string, string>> }) => Promise<Response>;

let db: TTestDatabase;
let prisma: PrismaClient;
let routes: { apply: { POST: THandler }; exportRoute: { GET: THandler } };

beforeAll(async () => {
  db = await createTestDatabase();
  process.env.DATABASE_URL = db.url;
  prisma = createPrisma(db.url);
  await seedCatalog(prisma);
  routes = {
    apply: await import("@/app/api/control/apply/route"),
    exportRoute: await import("@/app/api/control/export/route"),
  } as unknown as typeof routes;
});

afterAll(async () => {
  await prisma.$disconnect();
  await db.drop();
});

function call(handler: THandler, method: string, url: string, key: string, body?: string) {
  const req = new Request(`${ORIGIN}${url}`, {
    method,
    headers: { host: new URL(ORIGIN).host, authorization: `Bearer ${key}`, "content-type": "application/yaml" },
    ...(body === undefined ? {} : { body }),
  });
  return handler(req, { params: Promise.resolve({}) });
}

describe("a control key and its owner", () => {
  it("is narrowed at once when its owner is demoted, stops when they are disabled, and works again when re-enabled", async () => {
    const owner = await makeUser(prisma, ["admin"]);
    const other = await makeUser(prisma, ["admin"]);
    const { key, apiKey } = await createApiKey(prisma, owner.actor, { name: "cli", scopes: ["control"], operationKeys: [] });
    const exported = () => call(routes.exportRoute.GET, "GET", "/api/control/export", key);
    const yaml = await (await exported()).text();
    const current = (await prisma.provider.findUniqueOrThrow({ where: { key: "provider_A" } })).displayName;
    const apply = (name: string) => call(routes.apply.POST, "POST", "/api/control/apply", key, yaml.replace(`displayName: ${current}`, `displayName: ${name}`));

    expect((await apply("Provider A (1)")).status).toBe(200);
    await setUserRoles(prisma, other.actor, owner.user.id, { roles: ["viewer"] });
    const demoted = await apply("Provider A (2)");
    expect(demoted.status).toBe(403);
    expect(await demoted.text()).toContain("do not grant catalog.edit");
    expect((await prisma.provider.findUniqueOrThrow({ where: { key: "provider_A" } })).displayName).toBe("Provider A (1)");
    // Narrowed, not revoked: a viewer may still read the catalogue.
    expect((await exported()).status).toBe(200);

    await disableUser(prisma, other.actor, owner.user.id, {});
    expect((await exported()).status).toBe(401);
    await enableUser(prisma, other.actor, owner.user.id, null);
    expect((await exported()).status).toBe(200);

    const listed = (await listApiKeys(prisma)).find((k) => k.id === apiKey.id)!;
    expect(listed.owner).toEqual({ email: owner.user.email, disabled: false });
    expect(listed.lastUsedAt).not.toBeNull();
  });

  it("a key without an owner holds no control-plane permission", async () => {
    const { key } = await createApiKey(prisma, { userId: null, label: "bootstrap", ip: null }, { name: "ownerless", scopes: ["control"], operationKeys: [] });
    const r = await call(routes.exportRoute.GET, "GET", "/api/control/export", key);
    expect(r.status).toBe(403);
    expect(await r.text()).toContain("has no owner");
  });
});
