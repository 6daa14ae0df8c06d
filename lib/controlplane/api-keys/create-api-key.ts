import { z } from "zod";
import type { PrismaClient } from "../../db";
import { type TActor, appendAudit } from "../../audit";
import { generateApiKey, API_KEY_SCOPES, sha256Hex } from "../../auth";
import { invalid } from "../../errors";

export const ZCreateApiKeyBody = z.strictObject({
  name: z.string().trim().min(1, "name the service that will use the key").max(200),
  scopes: z.array(z.enum(API_KEY_SCOPES)).min(1, "give at least one scope: decide, outcomes, read, control or metrics"),
  operationKeys: z.array(z.string().min(1)).default([]),
});

/** Creates a key and returns it once; only its hash is stored. */
export async function createApiKey(prisma: PrismaClient, actor: TActor, body: z.output<typeof ZCreateApiKeyBody>) {
  return prisma.$transaction(async (tx) => {
    const known = new Set((await tx.operation.findMany({ where: { key: { in: body.operationKeys } }, select: { key: true } })).map((o) => o.key));
    const unknown = body.operationKeys.map((k, i) => ({ k, i })).filter(({ k }) => !known.has(k));
    if (unknown.length > 0) throw invalid(unknown.map(({ k, i }) => ({ path: `operationKeys.${i}`, message: `unknown operation "${k}"` })));
    const { key, prefix } = generateApiKey();
    const row = await tx.apiKey.create({
      data: {
        name: body.name,
        prefix,
        keyHash: sha256Hex(key),
        scopes: [...new Set(body.scopes)],
        operationKeys: [...new Set(body.operationKeys)],
        createdById: actor.userId,
      },
      omit: { keyHash: true },
    });
    await appendAudit(tx, actor, { action: "api_key.create", targetType: "api_key", targetId: row.id, after: row });
    return { key, apiKey: row };
  });
}
