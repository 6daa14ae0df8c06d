import { type PrismaClient, notifyConfigChange } from "../db";
import { type TActor, appendAudit } from "../audit";
import { ContractError } from "../errors";
import { operationData } from "./catalog-rows";
import type { TOperation } from "./schemas";
import { refuseUndeclared } from "./undeclared-names";

/**
 * Adds an operation with its regional requirements. Applies at once: nothing routes it until
 * its first factor list is approved, and a first version always needs compliance's approval.
 */
export async function createOperation(prisma: PrismaClient, actor: TActor, input: TOperation) {
  return prisma.$transaction(async (tx) => {
    if (await tx.operation.findUnique({ where: { key: input.key }, select: { key: true } })) {
      throw new ContractError("already_exists", `operation ${input.key} already exists`, [
        { path: "key", message: `an operation ${input.key} already exists` },
      ]);
    }
    await refuseUndeclared(tx, { operation: input });
    const row = await tx.operation.create({ data: operationData(input) });
    await appendAudit(tx, actor, { action: "catalog.operation.create", targetType: "operation", targetId: row.key, after: { ...input, version: row.version } });
    await notifyConfigChange(tx, { kind: "catalog" });
    return { status: "applied" as const, operation: input, version: row.version };
  });
}
