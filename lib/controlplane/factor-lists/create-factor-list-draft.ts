import type { Prisma, PrismaClient } from "../../db";
import { type TActor, appendAudit } from "../../audit";
import { ContractError, isUniqueViolation } from "../../errors";
import { nextVersionNumber, versionSummary } from "./version-guards";
import { validateFactorList, type TFactorListSource } from "./factor-list-input";

/** Imports a factor list (YAML or JSON) as a new draft version of its operation. */
export async function createFactorListDraft(prisma: PrismaClient, actor: TActor, source: TFactorListSource) {
  try {
    return await prisma.$transaction(async (tx) => {
      const { value, yaml } = await validateFactorList(tx, source);
      const policy = await tx.operationPolicy.findUnique({ where: { operationKey: value.operation } });
      const created = await tx.factorListVersion.create({
        data: {
          operationKey: value.operation,
          version: await nextVersionNumber(tx, value.operation),
          status: "draft",
          document: value as unknown as Prisma.InputJsonValue,
          yaml,
          changeNote: source.changeNote ?? "",
          authorId: actor.userId,
          basedOnId: policy?.activeVersionId ?? null,
        },
      });
      await appendAudit(tx, actor, {
        action: "factor_list.create",
        targetType: "factor_list_version",
        targetId: created.id,
        after: { ...versionSummary(created), yaml },
      });
      return created;
    });
  } catch (err) {
    if (isUniqueViolation(err)) throw new ContractError("conflict", "another version of this operation was created at the same moment; retry");
    throw err;
  }
}
