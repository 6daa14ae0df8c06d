import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createPrisma, type PrismaClient } from "../../db/client";
import { createTestDatabase, type TTestDatabase } from "../../../test/support/database";
import { createSession, resolveSession } from "../../auth/session";
import { signInWithPassword } from "../../auth/sign-in";
import { makeUser, refusal } from "../../../test/support/controlplane-fixtures";
import { createAdmin } from "./create-admin";
import { createUser } from "./create-user";
import { changeOwnPassword } from "./change-own-password";
import { createApiKey } from "../api-keys/create-api-key";
import { disableUser } from "./disable-user";
import { resetUserPassword } from "./reset-user-password";

/** Issue 35 item 10: a password policy everywhere a password is set; change, reset and disable, each audited. */
let db: TTestDatabase;
let prisma: PrismaClient;
let admin: Awaited<ReturnType<typeof makeUser>>;

beforeAll(async () => {
  db = await createTestDatabase();
  prisma = createPrisma(db.url);
  admin = await makeUser(prisma, ["admin"]);
});

afterAll(async () => {
  await prisma.$disconnect();
  await db.drop();
});

const GOOD = "correct horse battery staple";
const audit = (action: string, targetId: string) => prisma.auditEntry.findFirstOrThrow({ where: { action, targetId }, orderBy: { seq: "desc" } });

describe("every place a password is set applies the policy", () => {
  it("creating a user or an admin refuses aaaaaaaaaaaa, password1234 and twelve spaces with 422 naming password", async () => {
    for (const password of ["aaaaaaaaaaaa", "password1234", " ".repeat(12)]) {
      const user = await refusal(
        createUser(prisma, admin.actor, { email: `u${password.length}${password.trim()}@example.com`, name: "U", password, roles: ["viewer"] }),
      );
      expect([user.status, user.code, user.fields.map((f) => f.path)], password).toEqual([422, "invalid", ["password"]]);
      const first = await refusal(createAdmin(prisma, { email: "first-admin@example.com", password }));
      expect(first.status).toBe(422);
    }
    expect(await prisma.user.count({ where: { email: "first-admin@example.com" } })).toBe(0);
  });
});

describe("change, reset, disable", () => {
  it("one's own password changes only with the current one; other sessions are signed out; the audit holds no password", async () => {
    const { user } = await createUser(prisma, admin.actor, { email: "viewer1@example.com", name: "Viewer One", password: GOOD, roles: ["viewer"] });
    const actor = { userId: user.id, label: user.email, ip: null };
    const here = await createSession(prisma, user.id);
    const elsewhere = await createSession(prisma, user.id);
    const wrong = await refusal(changeOwnPassword(prisma, actor, here.sessionId, { currentPassword: "not it at all", newPassword: "a brand new phrase 7" }));
    expect([wrong.status, wrong.code]).toEqual([403, "invalid_credentials"]);
    const weak = await refusal(changeOwnPassword(prisma, actor, here.sessionId, { currentPassword: GOOD, newPassword: "password1234" }));
    expect([weak.status, weak.fields.map((f) => f.path)]).toEqual([422, ["newPassword"]]);
    expect(await changeOwnPassword(prisma, actor, here.sessionId, { currentPassword: GOOD, newPassword: "a brand new phrase 7" })).toEqual({
      otherSessionsRevoked: 1,
    });
    expect(await resolveSession(prisma, here.token)).not.toBeNull();
    expect(await resolveSession(prisma, elsewhere.token)).toBeNull();
    expect(await signInWithPassword(prisma, user.email, "a brand new phrase 7")).not.toBeNull();
    const entry = await audit("user.change_password", user.id);
    expect(JSON.stringify(entry)).not.toContain("brand new phrase");
  });

  it("an admin resets someone else's password, not their own nor a reviewer's, signing them out", async () => {
    const { user } = await createUser(prisma, admin.actor, { email: "viewer2@example.com", name: "Viewer Two", password: GOOD, roles: ["viewer"] });
    const session = await createSession(prisma, user.id);
    expect((await refusal(resetUserPassword(prisma, admin.actor, admin.user.id, { password: "another good phrase" }))).code).toBe("own_account");
    const reviewer = await makeUser(prisma, ["compliance"]);
    expect((await refusal(resetUserPassword(prisma, admin.actor, reviewer.user.id, { password: "another good phrase" }))).code).toBe("privileged_reset");
    expect((await refusal(resetUserPassword(prisma, admin.actor, user.id, { password: "Welcome@2024" }))).status).toBe(422);
    expect(await resetUserPassword(prisma, admin.actor, user.id, { password: "another good phrase", reason: "forgot it" })).toEqual({ sessionsRevoked: 1 });
    expect(await resolveSession(prisma, session.token)).toBeNull();
    expect(await signInWithPassword(prisma, user.email, "another good phrase")).not.toBeNull();
    expect((await audit("user.reset_password", user.id)).actorId).toBe(admin.user.id);
  });

  it("disabling signs the user out, refuses sign-in, lists their keys, and is refused for oneself and the last admin", async () => {
    const { user } = await createUser(prisma, admin.actor, { email: "ops@example.com", name: "Ops", password: GOOD, roles: ["admin"] });
    const opsActor = { userId: user.id, label: user.email, ip: null };
    await createApiKey(prisma, opsActor, { name: "cli", scopes: ["control"], operationKeys: [] });
    await createApiKey(prisma, opsActor, { name: "svc", scopes: ["decide"], operationKeys: [] });
    const session = await createSession(prisma, user.id);
    expect((await refusal(disableUser(prisma, admin.actor, admin.user.id, {}))).code).toBe("own_account");
    const after = await disableUser(prisma, admin.actor, user.id, { reason: "left the team" });
    expect(after).toMatchObject({ sessionsRevoked: 1 });
    expect([after.controlKeysStopped.length, after.dataPlaneKeysKept.length]).toEqual([1, 1]);
    expect(await resolveSession(prisma, session.token)).toBeNull();
    expect(await signInWithPassword(prisma, user.email, GOOD)).toBeNull();
    expect((await audit("user.disable", user.id)).reason).toBe("left the team");
    // The last enabled admin stays: the instance must remain administrable.
    const last = await refusal(disableUser(prisma, opsActor, admin.user.id, {}));
    expect([last.status, last.code]).toEqual([409, "last_admin"]);
  });
});
