import type { CatalogChange, Prisma } from "../db";
import { type TActor, appendAudit } from "../audit";
import { sameRequirements, sameSet } from "./catalog-rows";
import type { TAdapter, TOperation, TProvider, TRegionEntry } from "./schemas";

type TTx = Prisma.TransactionClient;

// What in a catalogue edit waits for compliance, and how it waits: a pending change a reviewer decides.
/**
 * What in a provider edit moves compliance: certifications, regions, or enabling a provider that
 * was disabled. Those wait for a compliance reviewer; everything else applies at once.
 */
export function providerComplianceReasons(before: TProvider, after: TProvider): string[] {
  const reasons: string[] = [];
  if (!sameSet(before.certifications, after.certifications)) reasons.push(`certifications ${list(before.certifications)} → ${list(after.certifications)}`);
  if (!sameSet(before.regions, after.regions)) reasons.push(`regions ${list(before.regions)} → ${list(after.regions)}`);
  if (!before.enabled && after.enabled) reasons.push("enables a disabled provider");
  return reasons;
}

export function operationComplianceReasons(before: TOperation, after: TOperation): string[] {
  return sameRequirements(before.regionRequirements, after.regionRequirements)
    ? []
    : [`regional requirements ${JSON.stringify(before.regionRequirements)} → ${JSON.stringify(after.regionRequirements)}`];
}

const list = (xs: readonly string[]) => (xs.length > 0 ? `[${xs.join(", ")}]` : "[]");

/**
 * Holds a compliance-moving or security-class change for review. A newer request for the same
 * target supersedes a pending one, so a reviewer never approves a stale edit by accident.
 */
export async function holdForCompliance(
  tx: TTx,
  actor: TActor,
  target: { type: "provider" | "operation" | "adapter" | "region"; key: string; version: number | null },
  action: "create" | "update",
  payload: TProvider | TOperation | TAdapter | TRegionEntry,
  reasons: string[],
  before: unknown = null,
): Promise<CatalogChange> {
  await tx.catalogChange.updateMany({ where: { targetType: target.type, targetKey: target.key, status: "pending" }, data: { status: "superseded" } });
  const change = await tx.catalogChange.create({
    data: {
      targetType: target.type,
      targetKey: target.key,
      action,
      payload: payload as unknown as Prisma.InputJsonValue,
      reasons,
      baseVersion: target.version,
      requestedById: actor.userId,
      requestedBy: actor.label,
    },
  });
  await appendAudit(tx, actor, {
    action: `catalog.${target.type}.request`,
    targetType: "catalog_change",
    targetId: change.id,
    before,
    after: { target: `${target.type}:${target.key}`, payload, reasons, baseVersion: target.version },
  });
  return change;
}

export function changeSummary(c: CatalogChange) {
  return {
    id: c.id,
    targetType: c.targetType,
    targetKey: c.targetKey,
    action: c.action,
    payload: c.payload,
    reasons: c.reasons,
    baseVersion: c.baseVersion,
    status: c.status,
    requestedBy: c.requestedBy,
    requestedAt: c.requestedAt.toISOString(),
    decidedBy: c.decidedBy,
    decidedAt: c.decidedAt?.toISOString() ?? null,
    comment: c.comment,
  };
}
export type TCatalogChangeSummary = ReturnType<typeof changeSummary>;
