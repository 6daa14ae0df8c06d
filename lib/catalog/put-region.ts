import { type Prisma, type PrismaClient, notifyConfigChange } from "../db";
import { type TActor, appendAudit } from "../audit";
import { invalid } from "../errors";
import { loadDeclaredNames, undeclaredCertifications } from "../controlplane";
import { changeSummary, holdForCompliance } from "./compliance-hold";
import { sameSet } from "./catalog-rows";
import type { TRegionEntry } from "./schemas";
import { otherReviewerExists } from "./security-review";

type TTx = Prisma.TransactionClient;

/**
 * Declares a region or changes its compliance rule (`requires`: the certifications every provider
 * serving any operation there must hold). Declaring one and adding requirements apply at once:
 * neither lets traffic go anywhere it could not go before. Dropping a required certification
 * weakens compliance for every operation in the region, so it is security-class
 * (security-review.ts): held for someone else holding catalog.approve_compliance, applied at once
 * and marked `single_reviewer` only where nobody else could approve it.
 */
export async function putRegion(prisma: PrismaClient, actor: TActor, input: TRegionEntry) {
  return prisma.$transaction(async (tx) => {
    const refused = undeclaredCertifications(await loadDeclaredNames(tx), input.requires, (i) => `requires[${i}]`);
    if (refused.length > 0) throw invalid(refused, refused.map((f) => f.message).join("; "));
    await tx.$queryRaw`select name from region where name = ${input.name} for update`;
    const before = await tx.region.findUnique({ where: { name: input.name } });
    if (before && sameSet(before.requires, input.requires)) return { status: "unchanged" as const, region: input, version: before.version };
    const dropped = before ? before.requires.filter((c) => !input.requires.includes(c)) : [];
    const alone = dropped.length > 0 && !(await otherReviewerExists(tx, actor));
    if (dropped.length > 0 && !alone) {
      const reasons = [`region ${input.name} no longer requires ${dropped.join(", ")}`];
      const change = await holdForCompliance(
        tx,
        actor,
        { type: "region", key: input.name, version: before!.version },
        "update",
        input,
        reasons,
        regionOf(before!),
      );
      return { status: "pending" as const, change: changeSummary(change) };
    }
    const row = await writeRegion(tx, actor, before, input, alone ? { single_reviewer: true } : {});
    return { status: "applied" as const, region: input, version: row.version };
  });
}

export function regionOf(row: { name: string; requires: string[] }): TRegionEntry {
  return { name: row.name, requires: [...row.requires] };
}

/** Writes a region's next state, bumps its version and audits it (also the approval of a held change). */
export async function writeRegion(
  tx: TTx,
  actor: TActor,
  before: { name: string; requires: string[]; version: number } | null,
  next: TRegionEntry,
  extra: Record<string, unknown> = {},
) {
  const row = before
    ? await tx.region.update({ where: { name: next.name }, data: { requires: next.requires, version: { increment: 1 } } })
    : await tx.region.create({ data: { name: next.name, requires: next.requires } });
  await appendAudit(tx, actor, {
    action: before ? "catalog.region.update" : "catalog.region.create",
    targetType: "region",
    targetId: row.name,
    before: before ? { ...regionOf(before), version: before.version } : null,
    after: { ...next, version: row.version, ...extra },
  });
  await notifyConfigChange(tx, { kind: "catalog" });
  return row;
}
