import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createPrisma, type PrismaClient } from "../../db/client";
import { createTestDatabase, type TTestDatabase } from "../../../test/support/database";
import { BASE_YAML, makeUser, refusal, seedCatalog } from "../../../test/support/controlplane-fixtures";
import { activateFactorList } from "./activate-factor-list";
import { approveFactorList } from "./approve-factor-list";
import { createFactorListDraft } from "./create-factor-list-draft";
import { submitFactorList } from "./submit-factor-list";

/** A version that loosens compliance goes live only with a confirmation and a reason, whoever calls. */
let db: TTestDatabase;
let prisma: PrismaClient;
let author: Awaited<ReturnType<typeof makeUser>>;
let approver: Awaited<ReturnType<typeof makeUser>>;
let compliance: Awaited<ReturnType<typeof makeUser>>;

beforeAll(async () => {
  db = await createTestDatabase();
  prisma = createPrisma(db.url);
  await seedCatalog(prisma);
  author = await makeUser(prisma, ["policy_author"]);
  approver = await makeUser(prisma, ["approver"]);
  compliance = await makeUser(prisma, ["compliance"]);
});

afterAll(async () => {
  await prisma.$disconnect();
  await db.drop();
});

async function approved(yaml: string) {
  const v = await createFactorListDraft(prisma, author.actor, { yaml, changeNote: "test" });
  await submitFactorList(prisma, author.actor, v.id);
  await approveFactorList(prisma, compliance.actor, v.id, "compliance", "seen");
  await approveFactorList(prisma, approver.actor, v.id, "approver", "ok");
  return v;
}

describe("activating a version that loosens compliance", () => {
  it("is refused without a confirmation and a reason, nothing written; with both it goes live and the audit keeps what was loosened", async () => {
    const v = await approved(BASE_YAML().replace("  - compliance_allowed\n", ""));
    const pointer = async () => (await prisma.operationPolicy.findUniqueOrThrow({ where: { operationKey: "SEND_SMS" } })).activeVersionId;
    const before = await pointer();
    const auditBefore = await prisma.auditEntry.count();

    const bare = await refusal(activateFactorList(prisma, approver.actor, v.id, {}));
    expect(bare.status).toBe(422);
    expect(bare.fields.map((f) => f.path).sort()).toEqual(["confirmComplianceWeakening", "reason"]);
    expect(bare.message).toContain("compliance_allowed");
    const noReason = await refusal(activateFactorList(prisma, approver.actor, v.id, { confirmComplianceWeakening: true, reason: "  " }));
    expect(noReason.fields.map((f) => f.path)).toEqual(["reason"]);
    expect(await pointer()).toBe(before);
    expect(await prisma.auditEntry.count()).toBe(auditBefore);

    await activateFactorList(prisma, approver.actor, v.id, { confirmComplianceWeakening: true, reason: "compliance is enforced upstream now" });
    expect(await pointer()).toBe(v.id);
    const entry = await prisma.auditEntry.findFirstOrThrow({ where: { action: "factor_list.activate", targetId: v.id } });
    expect(entry.reason).toBe("compliance is enforced upstream now");
    expect((entry.after as { complianceWeakened?: string[] }).complianceWeakened).toEqual([
      "the compliance_allowed gate is dropped: providers are no longer checked for it",
    ]);
  });

  it("a version that tightens compliance again needs neither", async () => {
    const v = await approved(BASE_YAML());
    await activateFactorList(prisma, approver.actor, v.id, {});
    expect((await prisma.operationPolicy.findUniqueOrThrow({ where: { operationKey: "SEND_SMS" } })).activeVersionId).toBe(v.id);
  });
});
