import { readFileSync, readdirSync } from "node:fs";
import path from "node:path";
import { randomUUID } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createPrisma, type PrismaClient } from "../db/client";
import { createTestDatabase, type TTestDatabase } from "../../test/support/database";
import { makeSessionCookie, makeUser, seedCatalog } from "../../test/support/controlplane-fixtures";
import { ROLES, roleGrants, type TRole } from "./permissions";
import { declaredPermission } from "./route-registry";

/** Control-plane routes and the console's read routes: every one must declare a permission. */
const ROUTE_DIRS = ["app/api/control", "app/api/console", "app/api/demo"].map((d) => path.resolve(process.cwd(), d));
const METHODS = ["GET", "HEAD", "POST", "PUT", "PATCH", "DELETE", "OPTIONS"] as const;
const ORIGIN = "http://switchyard.test";

type THandler = (req: Request, ctx: { params: Promise<Record<string, string>> }) => Promise<Response>;
type TRoute = { file: string; url: string; params: Record<string, string>; method: string; handler: THandler };

function filesUnder(dir: string, name: RegExp): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const full = path.join(dir, e.name);
    if (e.isDirectory()) return filesUnder(full, name);
    return name.test(e.name) ? [full] : [];
  });
}

const routeFiles = (dir: string) => filesUnder(dir, /^route\.(ts|tsx|js)$/);

/** Server actions that need no permission: signing in and out. */
const PUBLIC_ACTION_MODULES = new Set(["app/login/actions.ts"]);

let db: TTestDatabase;
let prisma: PrismaClient;
const routes: TRoute[] = [];
const unregistered: string[] = [];
const cookies = new Map<TRole, string>();

beforeAll(async () => {
  db = await createTestDatabase();
  process.env.DATABASE_URL = db.url;
  prisma = createPrisma(db.url);
  await seedCatalog(prisma);
  for (const role of ROLES) cookies.set(role, await makeSessionCookie(prisma, (await makeUser(prisma, [role])).user.id));

  for (const file of ROUTE_DIRS.flatMap(routeFiles)) {
    const rel = path.relative(path.resolve(process.cwd(), "app"), path.dirname(file));
    const params: Record<string, string> = {};
    const url = `/${rel
      .split(path.sep)
      .map((seg) => {
        const m = /^\[(.+)\]$/.exec(seg);
        if (!m) return seg;
        params[m[1]!] = randomUUID();
        return params[m[1]!];
      })
      .join("/")}`;
    const mod = (await import(file)) as Record<string, unknown>;
    for (const method of METHODS) {
      const handler = mod[method];
      if (handler === undefined) continue;
      if (!declaredPermission(handler)) unregistered.push(`${method} ${url}`);
      else routes.push({ file, url, params, method, handler: handler as THandler });
    }
  }
});

afterAll(async () => {
  await prisma.$disconnect();
  await db.drop();
});

function call(route: TRoute, headers: Record<string, string>): Promise<Response> {
  const hasBody = route.method !== "GET" && route.method !== "HEAD";
  const req = new Request(`${ORIGIN}${route.url}`, {
    method: route.method,
    headers: { host: new URL(ORIGIN).host, "content-type": "application/json", ...headers },
    ...(hasBody ? { body: "{}" } : {}),
  });
  return route.handler(req, { params: Promise.resolve(route.params) });
}

describe("authorisation matrix", () => {
  it("finds the control-plane routes, and every exported handler declares a permission", () => {
    expect(routes.length).toBeGreaterThanOrEqual(20);
    expect(unregistered).toEqual([]);
  });

  it('every exported server action (a "use server" module) declares a permission', async () => {
    const app = path.resolve(process.cwd(), "app");
    const modules = filesUnder(app, /\.(ts|tsx)$/).filter((f) => /^\s*["']use server["']/.test(readFileSync(f, "utf8")));
    expect(modules.length).toBeGreaterThan(1);
    const missing: string[] = [];
    for (const file of modules) {
      const rel = path.relative(process.cwd(), file).split(path.sep).join("/");
      if (PUBLIC_ACTION_MODULES.has(rel)) continue;
      const mod = (await import(file)) as Record<string, unknown>;
      for (const [name, fn] of Object.entries(mod)) if (!declaredPermission(fn)) missing.push(`${rel}#${name}`);
    }
    expect(missing).toEqual([]);
  });

  it("every route × every role is allowed exactly when the role table grants the route's permission", async () => {
    const auditBefore = await prisma.auditEntry.count();
    const mismatches: string[] = [];
    for (const route of routes) {
      const permission = declaredPermission(route.handler)!;
      for (const role of ROLES) {
        const res = await call(route, { cookie: cookies.get(role)!, origin: ORIGIN });
        const allowed = roleGrants(role, permission);
        const denied = res.status === 401 || res.status === 403;
        if (res.status >= 500) mismatches.push(`${route.method} ${route.url} as ${role}: ${res.status}`);
        else if (allowed === denied)
          mismatches.push(`${route.method} ${route.url} as ${role}: ${res.status}, ${permission} is ${allowed ? "granted" : "denied"}`);
        else if (!allowed) expect(((await res.json()) as { error: { code: string } }).error.code).toBe("forbidden");
      }
    }
    expect(mismatches).toEqual([]);
    // Denied calls change nothing (and the allowed ones here only hit validation or 404).
    expect(await prisma.auditEntry.count()).toBe(auditBefore);
  });

  it("the role-grant routes are in the matrix: reading grants is user.read, confirming and rejecting is user.set_roles", () => {
    const declared = (method: string, pattern: RegExp) =>
      routes.filter((r) => r.method === method && pattern.test(r.url)).map((r) => declaredPermission(r.handler));
    expect(declared("GET", /^\/api\/control\/users\/grants$/)).toEqual(["user.read"]);
    expect(declared("POST", /^\/api\/control\/users\/grants\/[^/]+\/confirm$/)).toEqual(["user.set_roles"]);
    expect(declared("POST", /^\/api\/control\/users\/grants\/[^/]+\/reject$/)).toEqual(["user.set_roles"]);
  });

  it("the catalogue routes are in the matrix: reading is catalog.read, editing catalog.edit (admin), held changes catalog.approve_compliance (compliance)", () => {
    const declared = (method: string, pattern: RegExp) =>
      routes.filter((r) => r.method === method && pattern.test(r.url)).map((r) => declaredPermission(r.handler));
    expect(declared("GET", /^\/api\/control\/catalog(\/|$)/).every((p) => p === "catalog.read")).toBe(true);
    expect(declared("POST", /^\/api\/control\/catalog\/(providers|operations)$/)).toEqual(["catalog.edit", "catalog.edit"]);
    expect(declared("PATCH", /^\/api\/control\/catalog\//)).toEqual(["catalog.edit", "catalog.edit"]);
    expect(declared("POST", /^\/api\/control\/catalog\/changes\/[^/]+\/(approve|reject)$/)).toEqual([
      "catalog.approve_compliance",
      "catalog.approve_compliance",
    ]);
    expect(ROLES.filter((r) => roleGrants(r, "catalog.edit"))).toEqual(["admin"]);
    expect(ROLES.filter((r) => roleGrants(r, "catalog.approve_compliance"))).toEqual(["compliance"]);
  });

  it("holding user.set_roles does not let anyone change their own roles", async () => {
    const route = routes.find((r) => r.method === "PUT" && /\/users\/[^/]+\/roles$/.test(r.url))!;
    const admin = await makeUser(prisma, ["admin"], "self-granting-admin");
    const cookie = await makeSessionCookie(prisma, admin.user.id);
    const res = await route.handler(
      new Request(`${ORIGIN}/api/control/users/${admin.user.id}/roles`, {
        method: "PUT",
        headers: { host: new URL(ORIGIN).host, origin: ORIGIN, cookie, "content-type": "application/json" },
        body: JSON.stringify({ roles: ["admin", "policy_author", "approver"] }),
      }),
      { params: Promise.resolve({ id: admin.user.id }) },
    );
    expect([res.status, ((await res.json()) as { error: { code: string } }).error.code]).toEqual([403, "own_roles"]);
    expect((await prisma.user.findUniqueOrThrow({ where: { id: admin.user.id } })).roles).toEqual(["admin"]);
  });

  it("without a session every route answers 401", async () => {
    for (const route of routes) {
      const res = await call(route, { origin: ORIGIN });
      expect(res.status, `${route.method} ${route.url}`).toBe(401);
    }
  });

  it("state-changing calls without this site's Origin are refused with 403, even for an admin", async () => {
    const writes = routes.filter((r) => r.method !== "GET" && r.method !== "HEAD");
    expect(writes.length).toBeGreaterThan(10);
    for (const route of writes) {
      for (const origin of [undefined, "https://evil.example", "null"]) {
        const res = await call(route, { cookie: cookies.get("admin")!, ...(origin ? { origin } : {}) });
        expect(res.status, `${route.method} ${route.url} from ${origin}`).toBe(403);
        expect(((await res.json()) as { error: { code: string } }).error.code).toBe("cross_origin");
      }
    }
  });
});
