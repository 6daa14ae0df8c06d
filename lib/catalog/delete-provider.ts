import { type PrismaClient, notifyConfigChange } from "../db";
import { type TActor, appendAudit } from "../audit";
import { providerOf } from "./catalog-rows";
import { lockProvider, refuseIfNamed } from "./catalog-writes";

/** Deletes a provider and its adapter; refused (409, naming them) while a live policy names it. */
export async function deleteProvider(prisma: PrismaClient, actor: TActor, key: string) {
  return prisma.$transaction(async (tx) => {
    const before = await lockProvider(tx, key);
    await refuseIfNamed(tx, key, "delete");
    await tx.providerAdapter.deleteMany({ where: { providerKey: key } });
    await tx.catalogChange.updateMany({ where: { targetType: "provider", targetKey: key, status: "pending" }, data: { status: "superseded" } });
    await tx.provider.delete({ where: { key } });
    await appendAudit(tx, actor, {
      action: "catalog.provider.delete",
      targetType: "provider",
      targetId: key,
      before: { ...providerOf(before), version: before.version },
    });
    await notifyConfigChange(tx, { kind: "catalog" });
    return { status: "deleted" as const, key };
  });
}
