import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createPrisma, type PrismaClient } from "../db/client";
import { createTestDatabase, type TTestDatabase } from "../../test/support/database";
import { GATES_YAML, makeUser, refusal, seedCatalog } from "../../test/support/controlplane-fixtures";
import { activateFactorList } from "../controlplane/factor-lists/activate-factor-list";
import { approveFactorList } from "../controlplane/factor-lists/approve-factor-list";
import { createFactorListDraft } from "../controlplane/factor-lists/create-factor-list-draft";
import { submitFactorList } from "../controlplane/factor-lists/submit-factor-list";

/** Factor-list approvals by compliance and activations notify, in the transaction that makes them; a refused one does not. */
let db: TTestDatabase;
let prisma: PrismaClient;

beforeAll(async () => {
  db = await createTestDatabase();
  prisma = createPrisma(db.url);
  await seedCatalog(prisma);
});

afterAll(async () => {
  await prisma.$disconnect();
  await db.drop();
});

describe("control-plane notifications", () => {
  it("a compliance approval and an activation each write one event; a refused activation writes none", async () => {
    const [author, approver, compliance] = await Promise.all([
      makeUser(prisma, ["policy_author"], "author"),
      makeUser(prisma, ["approver"], "approver"),
      makeUser(prisma, ["compliance"], "compliance"),
    ]);
    const v = await createFactorListDraft(prisma, author.actor, { yaml: GATES_YAML(), changeNote: "drop the freshness gate" });
    await submitFactorList(prisma, author.actor, v.id);
    // The author may not activate: refused, and nobody is told.
    await approveFactorList(prisma, approver.actor, v.id, "approver", "ok");
    await approveFactorList(prisma, compliance.actor, v.id, "compliance", "regional rules ok");
    await refusal(activateFactorList(prisma, author.actor, v.id));
    const activated = await activateFactorList(prisma, approver.actor, v.id);

    const events = await prisma.notificationEvent.findMany({ orderBy: { createdAt: "asc" } });
    expect(events.map((e) => e.kind)).toEqual(["compliance.approved", "policy.activated"]);
    expect(events[0]).toMatchObject({ groupKey: `compliance:${v.id}`, operation: "SEND_SMS", severity: "info" });
    expect(events[0]!.payload).toMatchObject({ targetType: "factor_list", requestedBy: author.user.email, actor: compliance.actor.label });
    expect(events[1]).toMatchObject({ groupKey: "policy:SEND_SMS", title: `Factor list v${activated.version} active on SEND_SMS` });
    expect(events[1]!.payload).toMatchObject({ policyId: v.id, actor: approver.actor.label, url: `/factor-lists/${v.id}` });
  });
});
