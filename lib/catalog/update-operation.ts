import type { PrismaClient } from "../db";
import { type TActor, canonicalJson } from "../audit";
import { parseInput } from "../errors";
import { operationOf } from "./catalog-rows";
import { changeSummary, holdForCompliance, operationComplianceReasons } from "./compliance-hold";
import { lockOperation, refuseIfOperationLive, writeOperation } from "./catalog-writes";
import { stripUndefined } from "./update-provider";
import { ZOperation, type TOperationPatch } from "./schemas";
import { refuseUndeclared } from "./undeclared-names";

/**
 * Edits an operation. A change to its regional requirements waits for compliance approval (as a
 * region rule in a factor list does); disabling one a live policy routes is refused.
 */
export async function updateOperation(prisma: PrismaClient, actor: TActor, key: string, patch: TOperationPatch) {
  return prisma.$transaction(async (tx) => {
    const before = await lockOperation(tx, key);
    const current = operationOf(before);
    const next = parseInput(ZOperation, { ...current, ...stripUndefined(patch), key });
    if (canonicalJson(next) === canonicalJson(current)) return { status: "unchanged" as const, operation: current, version: before.version };
    await refuseUndeclared(tx, { operation: next });
    if (current.enabled && !next.enabled) await refuseIfOperationLive(tx, key, "disable");
    const reasons = operationComplianceReasons(current, next);
    if (reasons.length > 0) {
      const change = await holdForCompliance(tx, actor, { type: "operation", key, version: before.version }, "update", next, reasons);
      return { status: "pending" as const, change: changeSummary(change) };
    }
    const row = await writeOperation(tx, actor, before, next, "catalog.operation.update");
    return { status: "applied" as const, operation: next, version: row.version };
  });
}
