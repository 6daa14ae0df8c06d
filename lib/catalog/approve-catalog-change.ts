import type { Prisma, PrismaClient } from "../db";
import { type TActor, appendAudit } from "../audit";
import { ContractError, invalid, notFound, parseInput } from "../errors";
import { notifyComplianceApproved } from "../notify";
import { adapterOf } from "./catalog-rows";
import { changeSummary } from "./compliance-hold";
import { lockOperation, lockProvider, writeOperation, writeProvider } from "./catalog-writes";
import { adapterInputErrors, writeAdapter } from "./put-adapter";
import { writeRegion } from "./put-region";
import { ZAdapter, ZOperation, ZProvider, ZRegionEntry } from "./schemas";
import { credentialRefErrors } from "./security-review";

async function lockChange(tx: Prisma.TransactionClient, id: string) {
  await tx.$queryRaw`select id from catalog_change where id = ${id}::uuid for update`;
  const change = await tx.catalogChange.findUnique({ where: { id } });
  if (!change) throw notFound("catalogue change", id);
  if (change.status !== "pending") throw new ContractError("invalid_state", `the change is ${change.status}, not pending`);
  return change;
}

/**
 * Compliance approves a held change (compliance-moving or security-class) and it applies. Separation of duties: the person who asked
 * for it cannot approve it (403 four_eyes). The target must still be at the version the change
 * was made against (409 stale_change otherwise), so what was reviewed is what applies; the
 * referential checks run again.
 */
export async function approveCatalogChange(prisma: PrismaClient, actor: TActor, id: string, comment: string) {
  return prisma.$transaction(async (tx) => {
    const change = await lockChange(tx, id);
    if (!actor.userId) throw new ContractError("forbidden", "only a signed-in user can approve");
    if (change.requestedById === actor.userId)
      throw new ContractError("four_eyes", "you asked for this change; someone else in the compliance role must approve it");
    const stale = (version: number) => {
      if (change.baseVersion !== null && change.baseVersion !== version) {
        throw new ContractError(
          "stale_change",
          `${change.targetType} ${change.targetKey} changed since this was requested (version ${change.baseVersion} → ${version}); ask for it again`,
        );
      }
    };
    const extra = { approvedChange: change.id, requestedBy: change.requestedBy };
    if (change.targetType === "adapter") {
      const provider = await lockProvider(tx, change.targetKey);
      const input = parseInput(ZAdapter, change.payload);
      const errors = adapterInputErrors(input);
      if (errors.length > 0) throw invalid(errors, "the held adapter no longer passes the outbound rules");
      const row = await tx.providerAdapter.findUnique({ where: { providerKey: change.targetKey } });
      await writeAdapter(tx, actor, provider, row ? adapterOf(row) : null, input, extra);
    } else if (change.targetType === "provider") {
      const before = await lockProvider(tx, change.targetKey);
      stale(before.version);
      const next = parseInput(ZProvider, change.payload);
      // The namespace is the server's configuration, which may have changed since the request.
      const refused = credentialRefErrors(next.credentialRef, "payload.credentialRef");
      if (refused.length > 0) throw invalid(refused, "the credential reference is outside the secrets namespace");
      await writeProvider(tx, actor, before, next, "catalog.provider.update", extra);
    } else if (change.targetType === "region") {
      await tx.$queryRaw`select name from region where name = ${change.targetKey} for update`;
      const before = await tx.region.findUnique({ where: { name: change.targetKey } });
      if (!before) throw notFound("region", change.targetKey);
      stale(before.version);
      await writeRegion(tx, actor, before, parseInput(ZRegionEntry, change.payload), extra);
    } else {
      const before = await lockOperation(tx, change.targetKey);
      stale(before.version);
      await writeOperation(tx, actor, before, parseInput(ZOperation, change.payload), "catalog.operation.update", extra);
    }
    const after = await tx.catalogChange.update({
      where: { id },
      data: { status: "applied", decidedById: actor.userId, decidedBy: actor.label, decidedAt: new Date(), comment },
    });
    const summary = `${change.action} ${change.targetType} ${change.targetKey}: ${change.reasons.join("; ")}`;
    const target = { targetType: change.targetType, targetKey: change.targetKey, summary, url: "/catalog" };
    await notifyComplianceApproved(tx, { changeId: id, ...target, requestedBy: change.requestedBy }, actor);
    await appendAudit(tx, actor, {
      action: "catalog.change.approve",
      targetType: "catalog_change",
      targetId: id,
      before: { status: "pending" },
      after: { status: "applied", reasons: change.reasons },
      reason: comment || null,
    });
    return { change: changeSummary(after) };
  });
}
