import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createPrisma, type PrismaClient } from "../../db/client";
import { createTestDatabase, type TTestDatabase } from "../../../test/support/database";
import { verifyAuditChain } from "../../audit/verify-audit-chain";
import { activateFactorList } from "./activate-factor-list";
import { approveFactorList } from "./approve-factor-list";
import { readFileSync } from "node:fs";
import { createFactorListDraft } from "./create-factor-list-draft";
import { endShadow } from "./end-shadow";
import { ContractError } from "../../errors/api-errors";
import { getFactorListVersion } from "./get-factor-list-version";
import { rejectFactorList } from "./reject-factor-list";
import { rollbackFactorList } from "./rollback-factor-list";
import { shadowFactorList } from "./shadow-factor-list";
import { submitFactorList } from "./submit-factor-list";
import { updateFactorListDraft } from "./update-factor-list-draft";
import { BASE_YAML, GATES_YAML, WEIGHTS_YAML, makeUser, seedCatalog, refusal } from "../../../test/support/controlplane-fixtures";

let db: TTestDatabase;
let prisma: PrismaClient;
let author: Awaited<ReturnType<typeof makeUser>>;
let approver: Awaited<ReturnType<typeof makeUser>>;
let approver2: Awaited<ReturnType<typeof makeUser>>;
let compliance: Awaited<ReturnType<typeof makeUser>>;

beforeAll(async () => {
  db = await createTestDatabase();
  prisma = createPrisma(db.url);
  await seedCatalog(prisma);
  author = await makeUser(prisma, ["policy_author"]);
  approver = await makeUser(prisma, ["approver"]);
  approver2 = await makeUser(prisma, ["approver"]);
  compliance = await makeUser(prisma, ["compliance"]);
});

afterAll(async () => {
  await prisma.$disconnect();
  await db.drop();
});

async function activeVersionOf(operationKey = "SEND_SMS") {
  const policy = await prisma.operationPolicy.findUniqueOrThrow({ where: { operationKey } });
  const active = await prisma.factorListVersion.findMany({ where: { operationKey, status: "active" } });
  return { pointer: policy.activeVersionId, active };
}

async function approvedDraft(yaml: string, opts: { compliance?: boolean } = {}) {
  const v = await createFactorListDraft(prisma, author.actor, { yaml, changeNote: "test" });
  await submitFactorList(prisma, author.actor, v.id);
  const { version } = await approveFactorList(prisma, approver.actor, v.id, "approver", "ok");
  // Whether compliance must review depends on the active version at the time.
  if (opts.compliance && version.status === "in_review") await approveFactorList(prisma, compliance.actor, v.id, "compliance", "regional rules ok");
  return v;
}

describe("factor-list lifecycle", () => {
  it("draft → in review → approved → active, superseding the previous version, all audited", async () => {
    const before = await activeVersionOf();
    const v = await createFactorListDraft(prisma, author.actor, { yaml: WEIGHTS_YAML(), changeNote: "latency matters more" });
    expect(v.status).toBe("draft");
    expect(v.version).toBe(2);
    expect(v.basedOnId).toBe(before.pointer);

    const submitted = await submitFactorList(prisma, author.actor, v.id);
    expect(submitted.status).toBe("in_review");
    expect(submitted.gatesChanged).toBe(false);

    const { version: approved, awaiting } = await approveFactorList(prisma, approver.actor, v.id, "approver", "lgtm");
    expect(approved.status).toBe("approved");
    expect(awaiting).toEqual([]);

    const detail = await getFactorListVersion(prisma, v.id);
    expect(detail.diff.changes.map((c) => c.path)).toEqual(["scores.completion_rate_5m.weight", "scores.p95_latency_5m.weight"]);

    const active = await activateFactorList(prisma, approver.actor, v.id, { reason: "roll out" });
    expect(active.status).toBe("active");
    expect(active.activatedAt).not.toBeNull();
    const after = await activeVersionOf();
    expect(after.pointer).toBe(v.id);
    expect(after.active.map((a) => a.id)).toEqual([v.id]);
    const old = await prisma.factorListVersion.findUniqueOrThrow({ where: { id: before.pointer! } });
    expect(old.status).toBe("superseded");

    const actions = (await prisma.auditEntry.findMany({ where: { targetId: v.id }, orderBy: { seq: "asc" } })).map((e) => e.action);
    expect(actions).toEqual(["factor_list.create", "factor_list.submit", "factor_list.approve", "factor_list.activate"]);
    expect((await verifyAuditChain(prisma)).ok).toBe(true);
  });

  it("approved → shadow → active, and shadowing another version returns the first to approved", async () => {
    const a = await approvedDraft(WEIGHTS_YAML());
    const b = await approvedDraft(WEIGHTS_YAML().replace("min_sample_size: 200", "min_sample_size: 250"));
    expect((await shadowFactorList(prisma, approver.actor, a.id)).status).toBe("shadow");
    expect((await prisma.operationPolicy.findUniqueOrThrow({ where: { operationKey: "SEND_SMS" } })).shadowVersionId).toBe(a.id);
    await shadowFactorList(prisma, approver.actor, b.id);
    expect((await prisma.factorListVersion.findUniqueOrThrow({ where: { id: a.id } })).status).toBe("approved");

    expect((await endShadow(prisma, approver.actor, b.id)).status).toBe("approved");
    expect((await prisma.operationPolicy.findUniqueOrThrow({ where: { operationKey: "SEND_SMS" } })).shadowVersionId).toBeNull();
    await shadowFactorList(prisma, approver.actor, b.id);

    await activateFactorList(prisma, approver.actor, b.id);
    const policy = await prisma.operationPolicy.findUniqueOrThrow({ where: { operationKey: "SEND_SMS" } });
    expect(policy.activeVersionId).toBe(b.id);
    expect(policy.shadowVersionId).toBeNull();
  });

  it("rollback re-activates an earlier version's document as a new version", async () => {
    const { pointer: current } = await activeVersionOf();
    const v1 = await prisma.factorListVersion.findFirstOrThrow({ where: { operationKey: "SEND_SMS", version: 1 } });
    const rolled = await rollbackFactorList(prisma, approver.actor, v1.id, { reason: "incident: revert to the baseline" });
    expect(rolled.status).toBe("active");
    expect(rolled.rollbackOfId).toBe(v1.id);
    expect(rolled.version).toBeGreaterThan(v1.version);
    expect(rolled.document).toEqual(v1.document);
    expect(rolled.basedOnId).toBe(current);
    const after = await activeVersionOf();
    expect(after.active.map((a) => a.id)).toEqual([rolled.id]);
    expect((await prisma.factorListVersion.findUniqueOrThrow({ where: { id: current! } })).status).toBe("superseded");
    expect(v1.status).toBe("superseded");

    const draft = await createFactorListDraft(prisma, author.actor, { yaml: WEIGHTS_YAML() });
    expect((await refusal(rollbackFactorList(prisma, approver.actor, draft.id, { reason: "x" }))).code).toBe("never_active");
    expect((await refusal(rollbackFactorList(prisma, approver.actor, rolled.id, { reason: "x" }))).code).toBe("already_active");
  });

  it("versions are immutable once approved; editing one in review revokes its approvals and returns it to draft", async () => {
    const v = await createFactorListDraft(prisma, author.actor, { yaml: GATES_YAML() });
    await submitFactorList(prisma, author.actor, v.id);
    const { version: partly, awaiting } = await approveFactorList(prisma, approver.actor, v.id, "approver", "");
    expect(partly.status).toBe("in_review");
    expect(awaiting).toEqual(["compliance"]);

    const revised = await updateFactorListDraft(prisma, author.actor, v.id, {
      yaml: GATES_YAML().replace("min_sample_size: 200", "min_sample_size: 300"),
      changeNote: "",
    });
    expect(revised.status).toBe("draft");
    const reviews = await prisma.factorListReview.findMany({ where: { versionId: v.id } });
    expect(reviews).toHaveLength(1);
    expect(reviews[0]!.revokedAt).not.toBeNull();
    const edit = await prisma.auditEntry.findFirstOrThrow({ where: { targetId: v.id, action: "factor_list.edit" } });
    expect((edit.after as { reviewsRevoked: number }).reviewsRevoked).toBe(1);

    await submitFactorList(prisma, author.actor, v.id);
    // The same approver may review the revision afresh: their earlier approval was revoked.
    await approveFactorList(prisma, approver.actor, v.id, "approver", "");
    const { version: done } = await approveFactorList(prisma, compliance.actor, v.id, "compliance", "");
    expect(done.status).toBe("approved");
    const err = await refusal(updateFactorListDraft(prisma, author.actor, v.id, { yaml: GATES_YAML(), changeNote: "" }));
    expect([err.status, err.code]).toEqual([409, "invalid_state"]);
    expect((await refusal(submitFactorList(prisma, author.actor, v.id))).status).toBe(409);
  });

  it("rejects with a comment; a rejected version can be revised back into a draft", async () => {
    const v = await createFactorListDraft(prisma, author.actor, { yaml: WEIGHTS_YAML() });
    await submitFactorList(prisma, author.actor, v.id);
    const rejected = await rejectFactorList(prisma, approver.actor, v.id, "approver", "too aggressive");
    expect(rejected.status).toBe("rejected");
    expect((await refusal(activateFactorList(prisma, approver.actor, v.id))).status).toBe(409);
    expect((await updateFactorListDraft(prisma, author.actor, v.id, { yaml: WEIGHTS_YAML(), changeNote: "gentler" })).status).toBe("draft");
  });

  it("imports the paper's Listing 1 as printed, also flattened by copy-paste from the PDF", async () => {
    for (const file of ["listing1.yaml", "listing1.flat.yaml"]) {
      const yaml = readFileSync(new URL(`../../../router-core/policy/${file}`, import.meta.url), "utf8");
      const v = await createFactorListDraft(prisma, author.actor, { yaml, changeNote: file });
      expect(v.yaml).toBe(yaml);
      expect((v.document as { scores: Record<string, { weight: number }> }).scores.completion_rate_5m!.weight).toBe(0.45);
    }
  });

  it("rejects an invalid factor list with every error by field path and stores nothing", async () => {
    const versionsBefore = await prisma.factorListVersion.count();
    const auditBefore = await prisma.auditEntry.count();
    const bad = BASE_YAML()
      .replace("completion_rate_5m: {weight: 0.45", "completion_rate_5m: {weight: 0.55")
      .replace("  - quota_available\n", "  - quota_available\n  - moon_phase\n")
      .replace("max_traffic_shift_per_minute: 0.50", "max_traffic_shift_per_minute: 1.5")
      .replace("primary_recovery_cooldown_seconds: 300", "primary_recovery_cooldown_seconds: -5");
    const err = await refusal(createFactorListDraft(prisma, author.actor, { yaml: bad }));
    expect(err.status).toBe(422);
    const paths = err.fields.map((f) => f.path);
    expect(paths).toEqual(expect.arrayContaining(["scores", "gates[3]", "safety.max_traffic_shift_per_minute", "safety.primary_recovery_cooldown_seconds"]));
    expect(err.fields.find((f) => f.path === "gates[3]")!.message).toContain("supports_region");

    const unknownProvider = await refusal(createFactorListDraft(prisma, author.actor, { yaml: BASE_YAML().replace("provider_C]", "provider_Z]") }));
    expect(unknownProvider.fields).toEqual([expect.objectContaining({ path: "providers[2]" })]);
    expect(await prisma.factorListVersion.count()).toBe(versionsBefore);
    expect(await prisma.auditEntry.count()).toBe(auditBefore);
  });
});

describe("four-eyes and compliance", () => {
  it("the author cannot approve their own version, even holding the approver role", async () => {
    const authorApprover = await makeUser(prisma, ["policy_author", "approver"]);
    const v = await createFactorListDraft(prisma, authorApprover.actor, { yaml: WEIGHTS_YAML() });
    await submitFactorList(prisma, authorApprover.actor, v.id);
    const err = await refusal(approveFactorList(prisma, authorApprover.actor, v.id, "approver", ""));
    expect([err.status, err.code]).toEqual([403, "four_eyes"]);
    expect(await prisma.factorListReview.count({ where: { versionId: v.id } })).toBe(0);
  });

  it("a gate change needs an approver and compliance; either alone is not enough; one person cannot be both", async () => {
    const both = await makeUser(prisma, ["approver", "compliance"]);
    const v = await createFactorListDraft(prisma, author.actor, { yaml: GATES_YAML() });
    const submitted = await submitFactorList(prisma, author.actor, v.id);
    expect(submitted.gatesChanged).toBe(true);

    const { version: afterCompliance, awaiting } = await approveFactorList(prisma, compliance.actor, v.id, "compliance", "");
    expect(afterCompliance.status).toBe("in_review");
    expect(awaiting).toEqual(["approver"]);

    const v2 = await createFactorListDraft(prisma, author.actor, { yaml: GATES_YAML() });
    await submitFactorList(prisma, author.actor, v2.id);
    await approveFactorList(prisma, both.actor, v2.id, "approver", "");
    expect((await refusal(approveFactorList(prisma, both.actor, v2.id, "compliance", ""))).code).toBe("already_reviewed");
    expect((await prisma.factorListVersion.findUniqueOrThrow({ where: { id: v2.id } })).status).toBe("in_review");

    const { version: approved } = await approveFactorList(prisma, approver2.actor, v.id, "approver", "");
    expect(approved.status).toBe("approved");
  });

  it("a non-gate change is approved by one approver; compliance alone does not approve it", async () => {
    const v = await createFactorListDraft(prisma, author.actor, { yaml: WEIGHTS_YAML().replace("min_sample_size: 200", "min_sample_size: 210") });
    await submitFactorList(prisma, author.actor, v.id);
    const { version } = await approveFactorList(prisma, compliance.actor, v.id, "compliance", "");
    expect(version.status).toBe("in_review");
    expect((await approveFactorList(prisma, approver.actor, v.id, "approver", "")).version.status).toBe("approved");
  });

  it("activation re-checks compliance against the version active now", async () => {
    // Approved as a weights-only change against the active version, but the active version then
    // changed its gates: going live would now change gates too, so compliance must review it.
    const weights = await approvedDraft(WEIGHTS_YAML().replace("min_sample_size: 200", "min_sample_size: 220"));
    const gates = await approvedDraft(GATES_YAML(), { compliance: true });
    await activateFactorList(prisma, approver.actor, gates.id);
    const err = await refusal(activateFactorList(prisma, approver.actor, weights.id));
    expect([err.status, err.code]).toEqual([409, "needs_compliance_approval"]);
  });

  it("a gate change keeps its compliance badge after activation and after being superseded", async () => {
    // The previous test left a version without the freshness gate active: putting it back is a gate change.
    const gates = await approvedDraft(BASE_YAML().replace("min_sample_size: 200", "min_sample_size: 230"), { compliance: true });
    expect((await getFactorListVersion(prisma, gates.id)).changesCompliance).toBe(true);
    await activateFactorList(prisma, approver.actor, gates.id);
    const live = await getFactorListVersion(prisma, gates.id);
    // Against itself the diff is empty; the badge comes from what the review found.
    expect(live.complianceApprovalRequired).toBe(false);
    expect(live.changesCompliance).toBe(true);
    const weights = await approvedDraft(BASE_YAML().replace("min_sample_size: 200", "min_sample_size: 231"));
    expect((await getFactorListVersion(prisma, weights.id)).changesCompliance).toBe(false);
    await activateFactorList(prisma, approver.actor, weights.id);
    expect((await getFactorListVersion(prisma, gates.id)).version.status).toBe("superseded");
    expect((await getFactorListVersion(prisma, gates.id)).changesCompliance).toBe(true);
    expect((await getFactorListVersion(prisma, weights.id)).changesCompliance).toBe(false);
  });
});

describe("concurrent activation", () => {
  it("of two approved versions at once, exactly one becomes active and the other gets 409", async () => {
    for (let round = 0; round < 5; round++) {
      const a = await approvedDraft(GATES_YAML().replace("min_sample_size: 200", `min_sample_size: ${400 + round}`), { compliance: true });
      const b = await approvedDraft(GATES_YAML().replace("min_sample_size: 200", `min_sample_size: ${500 + round}`), { compliance: true });
      // Both approvers act on what their screens showed: the same lock version. Without it two
      // activations that happen not to overlap are simply one after the other, both valid.
      const { policy } = await getFactorListVersion(prisma, a.id);
      const seen = { expectedLockVersion: policy.lockVersion };
      const results = await Promise.allSettled([
        activateFactorList(prisma, approver.actor, a.id, seen),
        activateFactorList(prisma, approver2.actor, b.id, seen),
      ]);
      const won = results.filter((r) => r.status === "fulfilled");
      const lost = results.filter((r): r is PromiseRejectedResult => r.status === "rejected");
      expect(won).toHaveLength(1);
      expect(lost).toHaveLength(1);
      expect((lost[0]!.reason as ContractError).status).toBe(409);
      const { pointer, active } = await activeVersionOf();
      expect(active).toHaveLength(1);
      expect(pointer).toBe(active[0]!.id);
    }
    expect((await verifyAuditChain(prisma)).ok).toBe(true);
  });

  it("the same version activated twice at once: one succeeds, the other is refused", async () => {
    const v = await approvedDraft(GATES_YAML().replace("min_sample_size: 200", "min_sample_size: 777"), { compliance: true });
    const results = await Promise.allSettled([activateFactorList(prisma, approver.actor, v.id), activateFactorList(prisma, approver2.actor, v.id)]);
    expect(results.filter((r) => r.status === "fulfilled")).toHaveLength(1);
    expect((await activeVersionOf()).active).toHaveLength(1);
  });

  it("a stale expectedLockVersion is refused with 409", async () => {
    const v = await approvedDraft(GATES_YAML().replace("min_sample_size: 200", "min_sample_size: 888"), { compliance: true });
    const { policy } = await getFactorListVersion(prisma, v.id);
    const err = await refusal(activateFactorList(prisma, approver.actor, v.id, { expectedLockVersion: policy.lockVersion - 1 }));
    expect([err.status, err.code]).toEqual([409, "policy_conflict"]);
    await activateFactorList(prisma, approver.actor, v.id, { expectedLockVersion: policy.lockVersion });
  });
});
