import { type PrismaClient, notifyConfigChange } from "../db";
import { type TActor, appendAudit } from "../audit";
import { notFound } from "../errors";
import { adapterOf } from "./catalog-rows";

/** Removes a provider's adapter: execute mode then skips the provider (decide is unaffected). */
export async function deleteAdapter(prisma: PrismaClient, actor: TActor, providerKey: string) {
  return prisma.$transaction(async (tx) => {
    const before = await tx.providerAdapter.findUnique({ where: { providerKey } });
    if (!before) throw notFound("adapter of provider", providerKey);
    await tx.providerAdapter.delete({ where: { providerKey } });
    await appendAudit(tx, actor, { action: "catalog.adapter.delete", targetType: "provider_adapter", targetId: providerKey, before: adapterOf(before) });
    await notifyConfigChange(tx, { kind: "catalog" });
    return { status: "deleted" as const };
  });
}
