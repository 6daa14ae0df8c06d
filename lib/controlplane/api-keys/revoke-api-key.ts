import type { PrismaClient } from "../../db";
import { type TActor, appendAudit } from "../../audit";
import { forgetApiKey } from "../../auth";
import { ContractError, notFound } from "../../errors";

export async function revokeApiKey(prisma: PrismaClient, actor: TActor, id: string, reason: string | null, now = new Date()) {
  const { after, keyHash } = await prisma.$transaction(async (tx) => {
    const before = await tx.apiKey.findUnique({ where: { id } });
    if (!before) throw notFound("API key", id);
    const res = await tx.apiKey.updateMany({ where: { id, revokedAt: null }, data: { revokedAt: now, revokedById: actor.userId } });
    if (res.count === 0) throw new ContractError("already_revoked", `API key ${before.prefix} is already revoked`);
    const after = await tx.apiKey.findUniqueOrThrow({ where: { id }, omit: { keyHash: true } });
    const { keyHash: _hash, ...beforeShown } = before;
    await appendAudit(tx, actor, { action: "api_key.revoke", targetType: "api_key", targetId: id, before: beforeShown, after, reason }, now);
    return { after, keyHash: before.keyHash };
  });
  forgetApiKey(keyHash);
  return after;
}
