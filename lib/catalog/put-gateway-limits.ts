import { type PrismaClient, notifyConfigChange } from "../db";
import { type TActor, canonicalJson, appendAudit } from "../audit";
import { invalid, notFound } from "../errors";
import { limitsOf } from "./catalog-rows";
import type { TGatewayLimits } from "./schemas";

/** Creates or replaces an operation's execute-mode limits (deadline, attempts, budgets, caps, windows). */
export async function putGatewayLimits(prisma: PrismaClient, actor: TActor, operationKey: string, input: TGatewayLimits) {
  if (input.costCapPerMinute !== null && input.costCapPerDay !== null && input.costCapPerMinute > input.costCapPerDay) {
    throw invalid([{ path: "costCapPerMinute", message: `must not exceed costCapPerDay (${input.costCapPerDay})` }]);
  }
  return prisma.$transaction(async (tx) => {
    if (!(await tx.operation.findUnique({ where: { key: operationKey }, select: { key: true } }))) throw notFound("operation", operationKey);
    const before = await tx.gatewayOperation.findUnique({ where: { operationKey } });
    if (before && canonicalJson(limitsOf(before)) === canonicalJson(input)) return { status: "unchanged" as const, limits: input };
    await tx.gatewayOperation.upsert({ where: { operationKey }, create: { operationKey, ...input }, update: input });
    await appendAudit(tx, actor, {
      action: "catalog.gateway_limits.put",
      targetType: "gateway_operation",
      targetId: operationKey,
      before: before ? limitsOf(before) : null,
      after: input,
    });
    await notifyConfigChange(tx, { kind: "catalog" });
    return { status: "applied" as const, limits: input };
  });
}
