import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { permissionsOf, type TRole } from "../../auth/permissions";
import { updateProvider } from "../../catalog/update-provider";
import { createPrisma, type PrismaClient } from "../../db/client";
import { createTestDatabase, type TTestDatabase } from "../../../test/support/database";
import { GATES_YAML, makeUser, seedCatalog } from "../../../test/support/controlplane-fixtures";
import { approveFactorList } from "../factor-lists/approve-factor-list";
import { createFactorListDraft } from "../factor-lists/create-factor-list-draft";
import { listReviewInbox } from "./list-review-inbox";
import { reviewStanding } from "./review-standing";
import { submitFactorList } from "../factor-lists/submit-factor-list";

/**
 * Each person sees what waits for them, and the version's standing moves with every review: what
 * is still missing, who gave what, and only the actions governance would accept from this person.
 */
let db: TTestDatabase;
let prisma: PrismaClient;
type TPerson = Awaited<ReturnType<typeof makeUser>> & { permissions: ReturnType<typeof permissionsOf> };
const people: Record<string, TPerson> = {};

async function person(name: string, roles: TRole[]) {
  people[name] = { ...(await makeUser(prisma, roles, name)), permissions: permissionsOf(roles) };
}

const inboxOf = async (name: string) => (await listReviewInbox(prisma, people[name]!.user.id, people[name]!.permissions)).items;
const standingOf = async (name: string, id: string) =>
  reviewStanding(prisma, await prisma.factorListVersion.findUniqueOrThrow({ where: { id } }), people[name]!.user.id, people[name]!.permissions);

beforeAll(async () => {
  db = await createTestDatabase();
  prisma = createPrisma(db.url);
  await seedCatalog(prisma);
  // The author also holds approver: they must not be offered their own change.
  await person("author", ["policy_author", "approver"]);
  await person("approver", ["approver"]);
  await person("compliance", ["compliance"]);
  await person("viewer", ["viewer"]);
  await person("admin", ["admin"]);
});

afterAll(async () => {
  await prisma.$disconnect();
  await db.drop();
});

describe("review inbox and standing", () => {
  it("a gate change waits for an approver and compliance, never for its author, and moves with each approval", async () => {
    const v = await createFactorListDraft(prisma, people.author!.actor, { yaml: GATES_YAML(), changeNote: "drop the freshness gate" });
    await submitFactorList(prisma, people.author!.actor, v.id);

    expect((await inboxOf("approver")).find((i) => i.id === v.id)).toMatchObject({
      kind: "factor_list",
      yours: ["approver"],
      waitingOn: ["approver", "compliance"],
    });
    expect((await inboxOf("compliance")).find((i) => i.id === v.id)).toMatchObject({ yours: ["compliance"] });
    expect((await inboxOf("author")).find((i) => i.id === v.id)).toBeUndefined();
    expect(await inboxOf("viewer")).toEqual([]);
    const own = await standingOf("author", v.id);
    expect(own.may).toMatchObject({ approve: false, approveCompliance: false, activate: false });
    expect(own.note).toMatch(/someone else must approve/);

    await approveFactorList(prisma, people.compliance!.actor, v.id, "compliance", "regional rules ok");
    expect((await inboxOf("compliance")).find((i) => i.id === v.id)).toBeUndefined();
    const afterCompliance = await standingOf("approver", v.id);
    expect(afterCompliance.waitingOn).toEqual(["approver"]);
    expect(afterCompliance.needs.find((n) => n.capacity === "compliance")?.by?.email).toBe(people.compliance!.user.email);
    expect(afterCompliance.may.approve).toBe(true);
    const compliance = await standingOf("compliance", v.id);
    expect(compliance.reviewedAs).toBe("compliance");
    expect(compliance.may.approveCompliance).toBe(false);

    await approveFactorList(prisma, people.approver!.actor, v.id, "approver", "ok");
    expect((await inboxOf("approver")).find((i) => i.id === v.id)).toBeUndefined();
    const approved = await standingOf("approver", v.id);
    expect(approved.waitingOn).toEqual([]);
    expect(approved.may).toMatchObject({ approve: false, reject: false, activate: true });
    const author = await standingOf("author", v.id);
    expect(author.may.activate).toBe(false);
    expect(author.note).toMatch(/someone else must activate/);
  });

  it("a catalogue change held for compliance is in compliance's inbox, not the asker's or an approver's", async () => {
    const res = await updateProvider(prisma, people.admin!.actor, "provider_B", { certifications: ["gdpr", "soc2"] });
    expect(res.status).toBe("pending");
    const id = res.status === "pending" ? res.change.id : "";
    expect((await inboxOf("compliance")).find((i) => i.id === id)).toMatchObject({ kind: "catalog_change", target: "provider provider_B" });
    expect((await inboxOf("approver")).find((i) => i.id === id)).toBeUndefined();
    expect((await inboxOf("admin")).find((i) => i.id === id)).toBeUndefined();
  });
});
