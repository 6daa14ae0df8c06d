import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createPrisma, type PrismaClient } from "../../db/client";
import { createTestDatabase, type TTestDatabase } from "../../../test/support/database";
import { verifyAuditChain } from "../../audit/verify-audit-chain";
import type { TActor } from "../../audit/actor";
import { activateFactorList } from "../factor-lists/activate-factor-list";
import { approveFactorList } from "../factor-lists/approve-factor-list";
import { confirmRoleGrant } from "./confirm-role-grant";
import { createFactorListDraft } from "../factor-lists/create-factor-list-draft";
import { createUser } from "../users/create-user";
import { rejectRoleGrant } from "./reject-role-grant";
import { setUserRoles } from "../users/set-user-roles";
import { submitFactorList } from "../factor-lists/submit-factor-list";
import { updateFactorListDraft } from "../factor-lists/update-factor-list-draft";
import { GATES_YAML, WEIGHTS_YAML, makeSessionCookie, makeUser, refusal, seedCatalog } from "../../../test/support/controlplane-fixtures";
import { PUT as putRoles } from "@/app/api/control/users/[id]/roles/route";
import { POST as postUser } from "@/app/api/control/users/route";
import { GET as getGrants } from "@/app/api/control/users/grants/route";
import { POST as postConfirm } from "@/app/api/control/users/grants/[id]/confirm/route";

/**
 * Issue 25, item 2: one admin must not be able to push a gate change live alone. Nobody changes
 * their own roles; with two or more admins a grant of admin, approver or compliance waits for a
 * second admin; author, approver and compliance approver are three people and the activator is
 * not the author; what a single admin does is marked in the audit log.
 */
const ORIGIN = "http://switchyard.test";
const PASSWORD = "puppet-password-123";

let db: TTestDatabase;
let prisma: PrismaClient;
let alice: { user: { id: string; email: string }; actor: TActor };

beforeAll(async () => {
  db = await createTestDatabase();
  process.env.DATABASE_URL = db.url;
  prisma = createPrisma(db.url);
  await seedCatalog(prisma);
  // seedDemo seeds the demo users (one demo admin); outside demo mode they do not count as admins.
  alice = await makeUser(prisma, ["admin"], "alice");
});

afterAll(async () => {
  await prisma.$disconnect();
  await db.drop();
});

const lastAudit = () => prisma.auditEntry.findFirstOrThrow({ orderBy: { seq: "desc" } });
const rolesOf = async (id: string) => (await prisma.user.findUniqueOrThrow({ where: { id } })).roles;

function call(
  handler: (req: Request, ctx: { params: Promise<Record<string, string>> }) => Promise<Response>,
  method: string,
  path: string,
  cookie: string,
  body?: unknown,
  params: Record<string, string> = {},
) {
  return handler(
    new Request(`${ORIGIN}${path}`, {
      method,
      headers: { host: new URL(ORIGIN).host, origin: ORIGIN, cookie, "content-type": "application/json" },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    }),
    { params: Promise.resolve(params) },
  );
}

describe("role changes", () => {
  it("nobody changes their own roles, not even the only admin (the reported attack's first step)", async () => {
    const before = await prisma.auditEntry.count();
    const err = await refusal(setUserRoles(prisma, alice.actor, alice.user.id, { roles: ["admin", "policy_author", "approver"] }));
    expect([err.status, err.code]).toEqual([403, "own_roles"]);
    const res = await call(
      putRoles,
      "PUT",
      `/api/control/users/${alice.user.id}/roles`,
      await makeSessionCookie(prisma, alice.user.id),
      { roles: ["admin", "approver"] },
      { id: alice.user.id },
    );
    expect(res.status).toBe(403);
    expect(((await res.json()) as { error: { code: string } }).error.code).toBe("own_roles");
    expect(await rolesOf(alice.user.id)).toEqual(["admin"]);
    expect(await prisma.auditEntry.count()).toBe(before);
  });

  it("while one admin exists, grants apply at once and are marked single_admin in the audit log and the grant list", async () => {
    const { user, pendingGrant } = await createUser(prisma, alice.actor, {
      email: "solo-approver@switchyard.test",
      name: "Solo",
      password: PASSWORD,
      roles: ["approver"],
    });
    expect(pendingGrant).toBeNull();
    expect(user.roles).toEqual(["approver"]);
    expect(((await lastAudit()).after as Record<string, unknown>).single_admin).toBe(true);
    const grant = await prisma.roleGrant.findFirstOrThrow({ where: { userId: user.id } });
    expect(grant).toMatchObject({ status: "applied", singleAdmin: true, roles: ["approver"], requestedById: alice.user.id });

    const res = await setUserRoles(prisma, alice.actor, user.id, { roles: ["approver", "on_call"] });
    expect(res.user.roles).toEqual(["approver", "on_call"]);
    expect((await lastAudit()).after).toMatchObject({ roles: ["approver", "on_call"], single_admin: true });
  });

  describe("with two admins", () => {
    let bob: { user: { id: string; email: string }; actor: TActor };
    let aliceCookie: string;
    let bobCookie: string;

    beforeAll(async () => {
      // The second admin, granted while alice was alone: applied at once, marked.
      const created = await createUser(prisma, alice.actor, { email: "bob@switchyard.test", name: "Bob", password: PASSWORD, roles: ["admin"] });
      expect(created.user.roles).toEqual(["admin"]);
      bob = { user: created.user, actor: { userId: created.user.id, label: created.user.email, ip: "127.0.0.1" } };
      aliceCookie = await makeSessionCookie(prisma, alice.user.id);
      bobCookie = await makeSessionCookie(prisma, bob.user.id);
    });

    it("a puppet approver created by one admin has no approver role until the other admin confirms", async () => {
      const res = await call(postUser, "POST", "/api/control/users", aliceCookie, {
        email: "puppet@switchyard.test",
        name: "Puppet",
        password: PASSWORD,
        roles: ["approver", "viewer"],
      });
      expect(res.status).toBe(201);
      const body = (await res.json()) as { user: { id: string; roles: string[] }; pendingGrant: { id: string; roles: string[] } };
      expect(body.user.roles).toEqual(["viewer"]);
      expect(body.pendingGrant.roles).toEqual(["approver"]);
      const audit = await lastAudit();
      expect(audit.after).toMatchObject({ pendingGrant: { id: body.pendingGrant.id, roles: ["approver"] } });
      expect((audit.after as Record<string, unknown>).single_admin).toBeUndefined();

      // Listed as pending, for the access page and the API.
      const list = (await (await call(getGrants, "GET", "/api/control/users/grants?status=pending", bobCookie)).json()) as {
        grants: { id: string; userEmail: string; requestedBy: string }[];
      };
      expect(list.grants).toEqual([expect.objectContaining({ id: body.pendingGrant.id, userEmail: "puppet@switchyard.test", requestedBy: alice.user.email })]);

      // The admin who asked cannot confirm it.
      const self = await call(postConfirm, "POST", `/api/control/users/grants/${body.pendingGrant.id}/confirm`, aliceCookie, {}, { id: body.pendingGrant.id });
      expect(self.status).toBe(403);
      expect(((await self.json()) as { error: { code: string } }).error.code).toBe("four_eyes");
      expect(await rolesOf(body.user.id)).toEqual(["viewer"]);

      const ok = await call(
        postConfirm,
        "POST",
        `/api/control/users/grants/${body.pendingGrant.id}/confirm`,
        bobCookie,
        { reason: "new release manager" },
        { id: body.pendingGrant.id },
      );
      expect(ok.status).toBe(200);
      expect(await rolesOf(body.user.id)).toEqual(["viewer", "approver"]);
      expect(await lastAudit()).toMatchObject({ action: "user.grant_confirm", actorId: bob.user.id, targetId: body.user.id, reason: "new release manager" });
      expect((await refusal(confirmRoleGrant(prisma, bob.actor, body.pendingGrant.id))).code).toBe("grant_not_pending");
    });

    it("setting roles applies the unprivileged part now and holds the privileged part (202); a rejected grant changes nothing", async () => {
      const carol = await makeUser(prisma, ["viewer"], "carol");
      const res = await call(
        putRoles,
        "PUT",
        `/api/control/users/${carol.user.id}/roles`,
        aliceCookie,
        { roles: ["viewer", "on_call", "compliance"] },
        { id: carol.user.id },
      );
      expect(res.status).toBe(202);
      const { pendingGrant } = (await res.json()) as { pendingGrant: { id: string } };
      expect(await rolesOf(carol.user.id)).toEqual(["viewer", "on_call"]);
      await rejectRoleGrant(prisma, bob.actor, pendingGrant.id, { reason: "not on the compliance team" });
      expect(await rolesOf(carol.user.id)).toEqual(["viewer", "on_call"]);
      expect(await lastAudit()).toMatchObject({ action: "user.grant_reject", targetId: carol.user.id });
      expect((await refusal(confirmRoleGrant(prisma, bob.actor, pendingGrant.id))).status).toBe(409);
    });

    it("a newer role change supersedes a waiting grant, and the grantee cannot confirm their own", async () => {
      const first = await setUserRoles(prisma, bob.actor, alice.user.id, { roles: ["admin", "approver"] });
      const second = await setUserRoles(prisma, bob.actor, alice.user.id, { roles: ["admin", "compliance"] });
      expect(await prisma.roleGrant.findUniqueOrThrow({ where: { id: first.pendingGrant!.id } })).toMatchObject({ status: "superseded" });
      const own = await refusal(confirmRoleGrant(prisma, alice.actor, second.pendingGrant!.id));
      expect([own.status, own.code]).toEqual([403, "own_roles"]);
      await rejectRoleGrant(prisma, bob.actor, second.pendingGrant!.id);
      expect(await rolesOf(alice.user.id)).toEqual(["admin"]);
    });

    it("removing a privileged role applies at once (taking power away needs no second admin)", async () => {
      const dave = await makeUser(prisma, ["approver", "viewer"], "dave");
      const res = await setUserRoles(prisma, alice.actor, dave.user.id, { roles: ["viewer"] });
      expect([res.user.roles, res.pendingGrant]).toEqual([["viewer"], null]);
    });
  });
});

describe("separation of duties on a factor-list version", () => {
  it("author, approver and compliance approver are three people, and the author cannot activate even holding the approver role", async () => {
    const authorApprover = await makeUser(prisma, ["policy_author", "approver"], "author-approver");
    const approver = await makeUser(prisma, ["approver"], "approver");
    const compliance = await makeUser(prisma, ["compliance"], "compliance");
    const both = await makeUser(prisma, ["approver", "compliance"], "approver-compliance");

    const v = await createFactorListDraft(prisma, authorApprover.actor, { yaml: GATES_YAML(), changeNote: "drop the freshness gate" });
    await submitFactorList(prisma, authorApprover.actor, v.id);
    expect((await refusal(approveFactorList(prisma, authorApprover.actor, v.id, "approver", "mine"))).code).toBe("four_eyes");
    await approveFactorList(prisma, both.actor, v.id, "approver", "ok");
    // The same person cannot also give the compliance approval.
    expect((await refusal(approveFactorList(prisma, both.actor, v.id, "compliance", "also ok"))).code).toBe("already_reviewed");
    const { version } = await approveFactorList(prisma, compliance.actor, v.id, "compliance", "gates ok");
    expect(version.status).toBe("approved");

    const own = await refusal(activateFactorList(prisma, authorApprover.actor, v.id));
    expect([own.status, own.code]).toEqual([403, "four_eyes"]);
    expect((await prisma.factorListVersion.findUniqueOrThrow({ where: { id: v.id } })).status).toBe("approved");
    expect((await activateFactorList(prisma, approver.actor, v.id)).status).toBe("active");
  });

  it("whoever edited a version counts as its author: they can neither approve nor activate it", async () => {
    const author = await makeUser(prisma, ["policy_author"], "author");
    const editor = await makeUser(prisma, ["policy_author", "approver"], "editor-approver");
    const approver = await makeUser(prisma, ["approver"], "approver2");
    const v = await createFactorListDraft(prisma, author.actor, { yaml: GATES_YAML(), changeNote: "draft" });
    await updateFactorListDraft(prisma, editor.actor, v.id, { yaml: WEIGHTS_YAML(), changeNote: "weights instead" });
    await submitFactorList(prisma, author.actor, v.id);
    expect((await refusal(approveFactorList(prisma, editor.actor, v.id, "approver", "looks good to me"))).code).toBe("four_eyes");
    await approveFactorList(prisma, approver.actor, v.id, "approver", "ok");
    // Against the active version this puts a gate back: compliance reviews it too.
    const { version } = await approveFactorList(prisma, (await makeUser(prisma, ["compliance"], "compliance2")).actor, v.id, "compliance", "ok");
    expect(version.status).toBe("approved");
    expect((await refusal(activateFactorList(prisma, editor.actor, v.id))).code).toBe("four_eyes");
    expect(await verifyAuditChain(prisma)).toMatchObject({ ok: true });
  });
});
