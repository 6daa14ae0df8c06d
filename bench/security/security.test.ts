import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { randomUUID } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { createPrisma, type PrismaClient } from "../../lib/db/client";
import { createTestDatabase, type TTestDatabase } from "../../test/support/database";
import { makeSessionCookie, makeUser, seedCatalog } from "../../test/support/controlplane-fixtures";
import { createAdmin } from "../../lib/controlplane/users/create-admin";
import { declaredPermission } from "../../lib/auth/route-registry";
import { createSession, resolveSession, SESSION_COOKIE } from "../../lib/auth/session";
import { sha256Hex } from "../../lib/auth/tokens";
import { verifyAuditChain } from "../../lib/audit/verify-audit-chain";
import { createApiKey } from "../../lib/controlplane/api-keys/create-api-key";
import { SYSTEM_ACTOR } from "../../lib/audit/actor";
import { startStandaloneDataPlane } from "../../test/support/standalone-dataplane";
import { dataPlaneSettings } from "../../lib/dataplane/settings";
import { loadControlRoutes, STATE_CHANGING, type TControlRoute } from "../fuzz/control-routes";
import { createSecretScanner, formatFindings, secretsFromEnv } from "../../test/support/secret-scan";

const ORIGIN = "http://switchyard.test";
const HOST = new URL(ORIGIN).host;
const CLIENT_IP = "x-switchyard-client-ip";
const ADMIN_EMAIL = "sec-admin@switchyard.test";
const ADMIN_PASSWORD = "correct horse battery staple 42";
/** Route handlers that are not wrapped by withPermission and check the origin themselves. */
const SELF_CHECKED = ["app/(auth)/api/auth/login/route.ts POST", "app/(auth)/api/auth/logout/route.ts POST"];

let db: TTestDatabase;
let prisma: PrismaClient;
let routes: TControlRoute[];
let adminCookie: string;

beforeAll(async () => {
  db = await createTestDatabase();
  process.env.DATABASE_URL = db.url;
  prisma = createPrisma(db.url);
  await seedCatalog(prisma);
  const admin = await createAdmin(prisma, { email: ADMIN_EMAIL, password: ADMIN_PASSWORD });
  adminCookie = await makeSessionCookie(prisma, admin.id);
  routes = await loadControlRoutes();
});

afterAll(async () => {
  delete process.env.SWITCHYARD_TRUST_PROXY;
  await prisma.$disconnect();
  await db.drop();
});

function request(
  route: TControlRoute,
  headers: Record<string, string>,
  body?: unknown,
  url = `${ORIGIN}${route.path.replace(/\{\w+\}/g, randomUUID())}`,
): Promise<Response> {
  const req = new Request(url, {
    method: route.method,
    headers: { host: HOST, "content-type": "application/json", ...headers },
    ...(route.method !== "GET" && route.method !== "HEAD" ? { body: JSON.stringify(body ?? {}) } : {}),
  });
  return route.handler(req, { params: Promise.resolve(Object.fromEntries([...route.path.matchAll(/\{(\w+)\}/g)].map((m) => [m[1]!, randomUUID()]))) });
}

function routeAt(method: string, p: string): TControlRoute {
  const r = routes.find((x) => x.method === method && x.path === p);
  if (!r) throw new Error(`no route ${method} ${p}`);
  return r;
}

function setCookie(res: Response): { token: string; attributes: string[] } {
  const raw = res.headers.get("set-cookie") ?? "";
  const [pair, ...attributes] = raw.split(";").map((s) => s.trim());
  const [name, value] = [pair!.slice(0, pair!.indexOf("=")), pair!.slice(pair!.indexOf("=") + 1)];
  expect(name).toBe(SESSION_COOKIE);
  return { token: decodeURIComponent(value), attributes };
}

describe("CSRF: every state-changing console request needs this site's origin", () => {
  it("walks the route registry: each state-changing handler declares a permission (withPermission checks the origin first) or is one of the auth routes that check it themselves", () => {
    const writes = routes.filter((r) => STATE_CHANGING.has(r.method));
    expect(writes.length).toBeGreaterThan(15);
    expect(new Set(routes.map((r) => (r.file.split("/")[1] === "(auth)" ? "auth" : r.file.split("/")[2])))).toEqual(
      new Set(["control", "console", "demo", "auth"]),
    );
    const undeclared = writes.filter((r) => !declaredPermission(r.handler)).map((r) => `${r.file} ${r.method}`);
    expect(undeclared.sort()).toEqual(SELF_CHECKED);
  });

  it("refuses every state-changing handler without Origin, with a foreign or opaque Origin, or with a cross-site Sec-Fetch-Site — even for a signed-in admin — and writes nothing", async () => {
    const auditBefore = await prisma.auditEntry.count();
    const sessionsBefore = await prisma.session.count();
    const attempts: Array<Record<string, string>> = [
      {},
      { origin: "https://evil.example" },
      { origin: "null" },
      { origin: `${ORIGIN}.evil.example` },
      { origin: ORIGIN, "sec-fetch-site": "cross-site" },
      { origin: ORIGIN, "sec-fetch-site": "same-site" },
    ];
    const accepted: string[] = [];
    for (const route of routes.filter((r) => STATE_CHANGING.has(r.method))) {
      for (const headers of attempts) {
        const res = await request(route, { cookie: adminCookie, ...headers }, { email: ADMIN_EMAIL, password: ADMIN_PASSWORD });
        const code = res.status === 403 ? ((await res.json()) as { error: { code: string } }).error.code : null;
        if (code !== "cross_origin") accepted.push(`${route.method} ${route.path} with ${JSON.stringify(headers)}: ${res.status}`);
      }
    }
    expect(accepted).toEqual([]);
    expect(await prisma.auditEntry.count()).toBe(auditBefore);
    expect(await prisma.session.count()).toBe(sessionsBefore);
  });

  it("lets the same request through from this site (Origin, and Sec-Fetch-Site: same-origin when the browser sends it)", async () => {
    for (const headers of [{ origin: ORIGIN }, { origin: ORIGIN, "sec-fetch-site": "same-origin" }] as Array<Record<string, string>>) {
      const res = await request(routeAt("POST", "/api/control/users"), { cookie: adminCookie, ...headers }, {});
      // Past the origin check: the empty body is refused as malformed.
      expect(res.status).toBe(400);
    }
  });
});

describe("sessions: fixation and cookie flags", () => {
  const login = () => routeAt("POST", "/api/auth/login");

  it("sign-in never keeps a token the browser brought: a planted unknown token is replaced, a planted valid session is revoked", async () => {
    const attacker = await makeUser(prisma, ["viewer"], "attacker");
    const planted = (await createSession(prisma, attacker.user.id)).token;
    for (const presented of [planted, "attacker-chosen-token-value"]) {
      const res = await request(login(), { origin: ORIGIN, cookie: `${SESSION_COOKIE}=${presented}` }, { email: ADMIN_EMAIL, password: ADMIN_PASSWORD });
      expect(res.status).toBe(200);
      const { token } = setCookie(res);
      expect(token).not.toBe(presented);
      expect(token.length).toBeGreaterThanOrEqual(43);
      expect((await resolveSession(prisma, token))?.email).toBe(ADMIN_EMAIL);
    }
    expect(await resolveSession(prisma, planted)).toBeNull();
  });

  it("every sign-in issues a new token", async () => {
    const tokens = new Set<string>();
    for (let i = 0; i < 3; i++) tokens.add(setCookie(await request(login(), { origin: ORIGIN }, { email: ADMIN_EMAIL, password: ADMIN_PASSWORD })).token);
    expect(tokens.size).toBe(3);
  });

  it("the session cookie is HttpOnly, SameSite=Lax, Path=/, expiring, and Secure exactly when the site is served over https", async () => {
    const plain = setCookie(await request(login(), { origin: ORIGIN }, { email: ADMIN_EMAIL, password: ADMIN_PASSWORD })).attributes;
    expect(plain).toEqual(expect.arrayContaining(["HttpOnly", "SameSite=Lax", "Path=/"]));
    expect(plain).not.toContain("Secure");
    const expires = plain.find((a) => a.startsWith("Expires="));
    expect(new Date(expires!.slice("Expires=".length)).getTime()).toBeGreaterThan(Date.now());

    const https = setCookie(
      await request(login(), { origin: "https://switchyard.test" }, { email: ADMIN_EMAIL, password: ADMIN_PASSWORD }, "https://switchyard.test/api/auth/login"),
    ).attributes;
    expect(https).toContain("Secure");

    // Behind a TLS-terminating proxy: trusted only when SWITCHYARD_TRUST_PROXY=1.
    const proxied = { origin: "https://console.example", "x-forwarded-proto": "https", "x-forwarded-host": "console.example" };
    expect((await request(login(), proxied, { email: ADMIN_EMAIL, password: ADMIN_PASSWORD })).status).toBe(403);
    process.env.SWITCHYARD_TRUST_PROXY = "1";
    try {
      const behindProxy = setCookie(await request(login(), proxied, { email: ADMIN_EMAIL, password: ADMIN_PASSWORD })).attributes;
      expect(behindProxy).toEqual(expect.arrayContaining(["Secure", "HttpOnly", "SameSite=Lax", "Path=/"]));
    } finally {
      delete process.env.SWITCHYARD_TRUST_PROXY;
    }
  });

  it("sign-out revokes the session and expires the cookie with the same flags", async () => {
    const { token } = setCookie(await request(login(), { origin: ORIGIN }, { email: ADMIN_EMAIL, password: ADMIN_PASSWORD }));
    const res = await request(routeAt("POST", "/api/auth/logout"), { origin: ORIGIN, cookie: `${SESSION_COOKIE}=${token}` });
    expect(res.status).toBe(204);
    const cleared = setCookie(res);
    expect(cleared.token).toBe("");
    expect(cleared.attributes).toEqual(expect.arrayContaining(["HttpOnly", "SameSite=Lax", "Path=/", "Max-Age=0"]));
    expect(await resolveSession(prisma, token)).toBeNull();
  });
});

describe("sign-ins and sign-outs are in the audit log", () => {
  it("records a sign-in, a failed sign-in (without the password) and a sign-out, and the chain still verifies", async () => {
    const since = (await prisma.auditEntry.aggregate({ _max: { seq: true } }))._max.seq ?? 0;
    const login = routeAt("POST", "/api/auth/login");
    const ok = await request(login, { origin: ORIGIN, [CLIENT_IP]: "203.0.113.9" }, { email: ADMIN_EMAIL.toUpperCase(), password: ADMIN_PASSWORD });
    const { token } = setCookie(ok);
    expect((await request(login, { origin: ORIGIN }, { email: ADMIN_EMAIL, password: "wrong-password-typed-here" })).status).toBe(401);
    expect((await request(login, { origin: ORIGIN }, { email: "nobody@switchyard.test", password: "whatever-password" })).status).toBe(401);
    await request(routeAt("POST", "/api/auth/logout"), { origin: ORIGIN, cookie: `${SESSION_COOKIE}=${token}` });
    // A second sign-out with the same token changes and records nothing.
    await request(routeAt("POST", "/api/auth/logout"), { origin: ORIGIN, cookie: `${SESSION_COOKIE}=${token}` });

    const entries = await prisma.auditEntry.findMany({ where: { seq: { gt: since } }, orderBy: { seq: "asc" } });
    const session = await prisma.session.findUniqueOrThrow({ where: { tokenHash: sha256Hex(token) } });
    expect(entries.map((e) => [e.action, e.actor, e.targetType])).toEqual([
      ["auth.sign_in", ADMIN_EMAIL, "session"],
      ["auth.sign_in_failed", ADMIN_EMAIL, "user"],
      ["auth.sign_in_failed", "nobody@switchyard.test", "user"],
      ["auth.sign_out", ADMIN_EMAIL, "session"],
    ]);
    expect(entries[0]).toMatchObject({ targetId: session.id, ip: "203.0.113.9", after: { method: "password" } });
    expect(entries[1]!.after).toEqual({ method: "password", reason: "wrong_password" });
    expect(entries[2]!.after).toEqual({ method: "password", reason: "unknown_account" });
    expect(entries[3]!.targetId).toBe(session.id);
    expect(JSON.stringify(entries)).not.toContain("wrong-password-typed-here");
    expect(await verifyAuditChain(prisma)).toMatchObject({ ok: true });
  });
});

describe("data-plane API keys are rate limited", () => {
  it("answers 429 with Retry-After and a JSON body past the key's limit, per key, and logs nothing for refused calls", async () => {
    const spoolDir = await mkdtemp(path.join(tmpdir(), "sy-rate-"));
    // A refill this slow keeps the test independent of how long three decides take here.
    process.env.API_KEY_RATE_LIMIT = "0.01/3";
    const server = await startStandaloneDataPlane({
      databaseUrl: db.url,
      embeddedDatabase: false,
      seed: false,
      settings: { ...dataPlaneSettings({}, process.cwd()), apiKey: undefined, spoolDir },
    });
    delete process.env.API_KEY_RATE_LIMIT;
    try {
      const a = await createApiKey(prisma, SYSTEM_ACTOR, { name: "busy", scopes: ["decide"], operationKeys: [] });
      const b = await createApiKey(prisma, SYSTEM_ACTOR, { name: "quiet", scopes: ["decide"], operationKeys: [] });
      const decide = (key: string) =>
        fetch(`${server.url}/api/v1/decide`, {
          method: "POST",
          headers: { "content-type": "application/json", authorization: `Bearer ${key}` },
          body: JSON.stringify({ operation: "SEND_SMS", region: "EU", requestId: randomUUID() }),
        });
      const before = await server.prisma.decision.count();
      const statuses = [];
      for (let i = 0; i < 3; i++) statuses.push((await decide(a.key)).status);
      const refused = await decide(a.key);
      expect(statuses).toEqual([200, 200, 200]);
      expect(refused.status).toBe(429);
      expect(Number(refused.headers.get("retry-after"))).toBeGreaterThan(1);
      const body = (await refused.json()) as { error: { code: string; message: string; fields: { path: string }[] } };
      expect(body.error).toMatchObject({ code: "rate_limited", fields: [{ path: "authorization" }] });
      expect(body.error.message).toContain(a.apiKey.prefix);
      expect(body.error.message).not.toContain(a.key);
      expect((await decide(b.key)).status).toBe(200);
      expect(await server.prisma.decision.count()).toBe(before + 4);
    } finally {
      await server.close();
      await rm(spoolDir, { recursive: true, force: true });
    }
  });
});

describe("no secret in any control-plane response or log line", () => {
  it("exercises the control API as an admin and finds each secret only where it is meant to be shown once", async () => {
    process.env.SWITCHYARD_API_KEY = `env-bootstrap-${randomUUID()}`;
    process.env.PROVIDER_TWILIO_AUTH_TOKEN = `tw-${randomUUID()}`;
    const texts: Array<{ source: string; text: string }> = [];
    const capture = (source: string) => (chunk: unknown) => {
      texts.push({ source, text: typeof chunk === "string" ? chunk : String(chunk) });
      return true;
    };
    const spies = [
      vi.spyOn(process.stdout, "write").mockImplementation(capture("stdout")),
      vi.spyOn(process.stderr, "write").mockImplementation(capture("stderr")),
      ...(["log", "info", "warn", "error", "debug"] as const).map((m) =>
        vi.spyOn(console, m).mockImplementation((...args: unknown[]) => void capture(`console.${m}`)(args.map(String).join(" "))),
      ),
    ];
    const userPassword = `user-password-${randomUUID()}`;
    const sessionTokens: string[] = [adminCookie.slice(SESSION_COOKIE.length + 1)];
    let apiKey = "";
    try {
      const call = async (method: string, p: string, body?: unknown, params: Record<string, string> = {}) => {
        const route = routeAt(method, p);
        const url = `${ORIGIN}${p.replace(/\{(\w+)\}/g, (_, n: string) => params[n] ?? randomUUID())}`;
        const res = await route.handler(
          new Request(url, {
            method,
            headers: { host: HOST, origin: ORIGIN, cookie: adminCookie, "content-type": "application/json" },
            ...(body === undefined ? {} : { body: JSON.stringify(body) }),
          }),
          { params: Promise.resolve(params) },
        );
        const headers = [...res.headers.entries()]
          .filter(([k]) => k !== "set-cookie")
          .map(([k, v]) => `${k}: ${v}`)
          .join("\n");
        const text = await res.text();
        texts.push({ source: `${method} ${p}`, text: `${headers}\n\n${text}` });
        expect(res.status, `${method} ${p}: ${text}`).toBeLessThan(300);
        return JSON.parse(text) as unknown;
      };
      const user = (await call("POST", "/api/control/users", {
        email: `leak-${randomUUID()}@switchyard.test`,
        name: "Leak Check",
        password: userPassword,
        roles: ["viewer"],
      })) as { user: { id: string } };
      const created = (await call("POST", "/api/control/api-keys", { name: "leak check", scopes: ["decide"] })) as { key: string; apiKey: { id: string } };
      apiKey = created.key;
      const signIn = await routeAt("POST", "/api/auth/login").handler(
        new Request(`${ORIGIN}/api/auth/login`, {
          method: "POST",
          headers: { host: HOST, origin: ORIGIN, "content-type": "application/json" },
          body: JSON.stringify({ email: ADMIN_EMAIL, password: ADMIN_PASSWORD }),
        }),
        { params: Promise.resolve({}) },
      );
      sessionTokens.push(setCookie(signIn).token);
      texts.push({ source: "POST /api/auth/login body", text: await signIn.text() });
      await call("PUT", "/api/control/users/{id}/roles", { roles: ["viewer", "on_call"] }, { id: user.user.id });
      await call("POST", "/api/control/api-keys/{id}/revoke", { reason: "leak check done" }, { id: created.apiKey.id });
      // Every read the console offers, including the audit log and its exports.
      for (const route of routes.filter((r) => r.method === "GET")) {
        for (const query of route.path.includes("audit/export") ? ["?format=json", "?format=csv"] : [""]) {
          const params = Object.fromEntries([...route.path.matchAll(/\{(\w+)\}/g)].map((m) => [m[1]!, user.user.id]));
          const url = `${ORIGIN}${route.path.replace(/\{(\w+)\}/g, user.user.id)}${query}`;
          const res = await route.handler(new Request(url, { headers: { host: HOST, cookie: adminCookie } }), { params: Promise.resolve(params) });
          texts.push({
            source: `GET ${route.path}${query}`,
            text: `${[...res.headers.entries()].map(([k, v]) => `${k}: ${v}`).join("\n")}\n\n${await res.text()}`,
          });
        }
      }
    } finally {
      for (const s of spies) s.mockRestore();
    }
    const stored = await prisma.user.findMany({ where: { passwordHash: { not: null } }, select: { passwordHash: true } });
    const keyHashes = await prisma.apiKey.findMany({ select: { keyHash: true } });
    const sessionHashes = await prisma.session.findMany({ select: { tokenHash: true } });
    const scanner = createSecretScanner([
      { label: "admin password", value: ADMIN_PASSWORD },
      { label: "user password", value: userPassword },
      { label: "new API key", value: apiKey },
      ...sessionTokens.map((value) => ({ label: "session token", value })),
      ...stored.map((u) => ({ label: "password hash", value: u.passwordHash! })),
      ...keyHashes.map((k) => ({ label: "API key hash", value: k.keyHash })),
      ...sessionHashes.map((s) => ({ label: "session token hash", value: s.tokenHash })),
      ...secretsFromEnv({ SWITCHYARD_API_KEY: process.env.SWITCHYARD_API_KEY, PROVIDER_TWILIO_AUTH_TOKEN: process.env.PROVIDER_TWILIO_AUTH_TOKEN }),
    ]);
    for (const t of texts) scanner.scan(t.source, t.text);
    expect(scanner.skipped()).toEqual([]);
    expect(texts.length).toBeGreaterThan(20);
    const findings = scanner.findings().map((f) => `${f.label} in ${f.source}`);
    // The one place a secret is meant to appear: the new key, shown once to its creator.
    expect(findings, formatFindings(scanner.findings())).toEqual(["new API key in POST /api/control/api-keys"]);
    delete process.env.SWITCHYARD_API_KEY;
    delete process.env.PROVIDER_TWILIO_AUTH_TOKEN;
  });
});

describe("malformed identifiers in control-plane paths", () => {
  it("answer 404 naming the parameter, not 500", async () => {
    const cases = [
      ["GET", "/api/control/factor-lists/{id}", undefined],
      ["GET", "/api/control/factor-lists/{id}/yaml", undefined],
      ["GET", "/api/control/factor-lists/{id}/yaml", undefined, "\u0000"],
      // Digits are an id for routes keyed by a number (shift events), not for uuid-keyed ones.
      ["GET", "/api/control/factor-lists/{id}", undefined, "0"],
      ["PUT", "/api/control/users/{id}/roles", { roles: ["viewer"] }],
      ["POST", "/api/control/api-keys/{id}/revoke", { reason: "rotated" }],
    ] as const;
    for (const [method, p, body, id = "not-a-uuid"] of cases) {
      const route = routeAt(method, p);
      const res = await route.handler(
        new Request(`${ORIGIN}${p.replace("{id}", encodeURIComponent(id))}`, {
          method,
          headers: { host: HOST, origin: ORIGIN, cookie: adminCookie, "content-type": "application/json" },
          ...(body ? { body: JSON.stringify(body) } : {}),
        }),
        { params: Promise.resolve({ id }) },
      );
      const answer = (await res.json()) as { error: { code: string; message: string } };
      expect([res.status, answer.error.code], `${method} ${p}: ${answer.error.message}`).toEqual([404, "not_found"]);
    }
  });
});
