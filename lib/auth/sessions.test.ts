import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { createPrisma, type PrismaClient } from "../db/client";
import { createTestDatabase, type TTestDatabase } from "../../test/support/database";
import { revokeUserSessions } from "../controlplane/users/revoke-user-sessions";
import { setUserRoles } from "../controlplane/users/set-user-roles";
import { makeUser } from "../../test/support/controlplane-fixtures";
import { createAdmin, ensureAdminFromEnv } from "../controlplane/users/create-admin";
import { isDemoMode, markDemoMode } from "./demo-mode";
import { DEMO_USERS, seedDemoUsers } from "./demo-users";
import { resolveSession, revokeSessionToken, SESSION_TTL_MS } from "./session";
import { signInAsDemoUser, signInWithPassword } from "./sign-in";

let db: TTestDatabase;
let prisma: PrismaClient;

beforeAll(async () => {
  db = await createTestDatabase();
  prisma = createPrisma(db.url);
});

afterAll(async () => {
  await prisma.$disconnect();
  await db.drop();
});

afterEach(() => {
  delete process.env.SWITCHYARD_DEMO_MODE;
});

describe("accounts and sessions", () => {
  it("no account exists until the first admin is created from the environment, once", async () => {
    expect(await prisma.user.count()).toBe(0);
    expect(await ensureAdminFromEnv(prisma, {})).toBeNull();
    expect(await prisma.user.count()).toBe(0);
    const env = { SWITCHYARD_ADMIN_EMAIL: "Root@Example.com", SWITCHYARD_ADMIN_PASSWORD: "correct horse battery" };
    expect(await ensureAdminFromEnv(prisma, env)).toBe("root@example.com");
    expect(await ensureAdminFromEnv(prisma, { ...env, SWITCHYARD_ADMIN_EMAIL: "second@example.com" })).toBeNull();
    const admin = await prisma.user.findUniqueOrThrow({ where: { email: "root@example.com" } });
    expect(admin.roles).toEqual(["admin"]);
    expect(admin.passwordHash).toMatch(/^\$argon2id\$/);
    expect(await prisma.auditEntry.count({ where: { action: "user.create", actor: "bootstrap" } })).toBe(1);
  });

  it("refuses a short admin password", async () => {
    await expect(createAdmin(prisma, { email: "short@example.com", password: "short" })).rejects.toMatchObject({
      status: 400,
      code: "malformed",
      fields: [{ path: "password" }],
    });
  });

  it("signs in with the right password only, and the session resolves to the user's roles", async () => {
    expect(await signInWithPassword(prisma, "root@example.com", "wrong password!!")).toBeNull();
    expect(await signInWithPassword(prisma, "nobody@example.com", "correct horse battery")).toBeNull();
    const session = await signInWithPassword(prisma, "ROOT@example.com ", "correct horse battery", { ip: "127.0.0.1" });
    expect(session).not.toBeNull();
    const stored = await prisma.session.findFirstOrThrow({ where: { ip: "127.0.0.1" } });
    expect(stored.tokenHash).not.toBe(session!.token);
    expect(await resolveSession(prisma, session!.token)).toMatchObject({ email: "root@example.com", roles: ["admin"] });
  });

  it("sessions expire, can be revoked one by one or all at once, and die with a disabled user", async () => {
    const s = (await signInWithPassword(prisma, "root@example.com", "correct horse battery"))!;
    expect(await resolveSession(prisma, s.token, new Date(Date.now() + SESSION_TTL_MS + 1000))).toBeNull();
    await revokeSessionToken(prisma, s.token);
    expect(await resolveSession(prisma, s.token)).toBeNull();

    const a = (await signInWithPassword(prisma, "root@example.com", "correct horse battery"))!;
    const b = (await signInWithPassword(prisma, "root@example.com", "correct horse battery"))!;
    const admin = await prisma.user.findUniqueOrThrow({ where: { email: "root@example.com" } });
    const { revoked } = await revokeUserSessions(prisma, { userId: admin.id, label: admin.email, ip: null }, admin.id, "lost laptop");
    expect(revoked).toBeGreaterThanOrEqual(2);
    expect(await resolveSession(prisma, a.token)).toBeNull();
    expect(await resolveSession(prisma, b.token)).toBeNull();

    const viewer = await makeUser(prisma, ["viewer"]);
    await prisma.user.update({
      where: { id: viewer.user.id },
      data: { passwordHash: (await prisma.user.findUniqueOrThrow({ where: { id: admin.id } })).passwordHash },
    });
    const v = (await signInWithPassword(prisma, viewer.user.email, "correct horse battery"))!;
    await prisma.user.update({ where: { id: viewer.user.id }, data: { disabledAt: new Date() } });
    expect(await resolveSession(prisma, v.token)).toBeNull();
  });

  it("the last admin cannot lose the admin role", async () => {
    const admin = await prisma.user.findUniqueOrThrow({ where: { email: "root@example.com" } });
    // Nobody changes their own roles; the operator's tooling (no user) meets the last-admin rule.
    const operator = { userId: null, label: "bootstrap", ip: null };
    await expect(setUserRoles(prisma, operator, admin.id, { roles: ["viewer"] })).rejects.toMatchObject({ status: 409, code: "last_admin" });
    const other = await makeUser(prisma, ["admin"]);
    const otherActor = { userId: other.user.id, label: other.user.email, ip: null };
    expect((await setUserRoles(prisma, otherActor, admin.id, { roles: ["viewer", "admin"] })).user.roles).toEqual(["viewer", "admin"]);
    await setUserRoles(prisma, { userId: admin.id, label: admin.email, ip: null }, other.user.id, { roles: ["viewer"] });
  });

  it("demo users have no password and sign in with one click only in demo mode", async () => {
    await prisma.$transaction((tx) => seedDemoUsers(tx));
    const demo = DEMO_USERS[0]!;
    expect((await prisma.user.findUniqueOrThrow({ where: { email: demo.email } })).passwordHash).toBeNull();
    expect(await signInWithPassword(prisma, demo.email, "")).toBeNull();

    expect(markDemoMode({ embeddedDatabase: true, host: "0.0.0.0" })).toBe(false);
    expect(markDemoMode({ embeddedDatabase: false, host: "127.0.0.1" })).toBe(false);
    expect(await signInAsDemoUser(prisma, demo.email)).toBeNull();

    expect(markDemoMode({ embeddedDatabase: true, host: "127.0.0.1" })).toBe(true);
    expect(isDemoMode()).toBe(true);
    const s = await signInAsDemoUser(prisma, demo.email);
    expect(await resolveSession(prisma, s!.token)).toMatchObject({ email: demo.email, roles: demo.roles });
    expect(await signInAsDemoUser(prisma, "root@example.com")).toBeNull();
  });
});
