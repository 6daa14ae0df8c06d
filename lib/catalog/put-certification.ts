import type { PrismaClient } from "../db";
import { type TActor, appendAudit } from "../audit";
import type { TCertificationEntry } from "./schemas";

/**
 * Declares a certification (or changes its description). Declaring one moves no compliance by
 * itself: a provider claims it, or a region requires it, through the reviewed changes that do.
 */
export async function putCertification(prisma: PrismaClient, actor: TActor, input: TCertificationEntry) {
  return prisma.$transaction(async (tx) => {
    const before = await tx.certification.findUnique({ where: { name: input.name } });
    if (before && before.description === input.description) return { status: "unchanged" as const, certification: input };
    await tx.certification.upsert({ where: { name: input.name }, create: input, update: { description: input.description } });
    await appendAudit(tx, actor, {
      action: before ? "catalog.certification.update" : "catalog.certification.create",
      targetType: "certification",
      targetId: input.name,
      before: before ? { name: before.name, description: before.description } : null,
      after: input,
    });
    return { status: "applied" as const, certification: input };
  });
}
