import { type PrismaClient, notifyConfigChange } from "../db";
import { type TActor, appendAudit } from "../audit";
import { ContractError, invalid } from "../errors";
import { providerData } from "./catalog-rows";
import type { TProvider } from "./schemas";
import { credentialRefErrors } from "./security-review";
import { refuseUndeclared } from "./undeclared-names";

/**
 * Adds a provider. Applies at once, certifications and regions included: a new provider routes
 * nothing until a factor list names it, and an operation's policy that starts naming it is a
 * change compliance reviews (a first version always is; later ones when they touch gates or regions).
 * Its credential reference must lie in the secrets namespace; it is sent nowhere until an adapter,
 * itself a reviewed change (put-adapter.ts), exists.
 */
export async function createProvider(prisma: PrismaClient, actor: TActor, input: TProvider) {
  const refused = credentialRefErrors(input.credentialRef, "credentialRef");
  if (refused.length > 0) throw invalid(refused, "the credential reference is outside the secrets namespace");
  return prisma.$transaction(async (tx) => {
    if (await tx.provider.findUnique({ where: { key: input.key }, select: { key: true } })) {
      throw new ContractError("already_exists", `provider ${input.key} already exists`, [{ path: "key", message: `a provider ${input.key} already exists` }]);
    }
    await refuseUndeclared(tx, { provider: input });
    const row = await tx.provider.create({ data: providerData(input) });
    await appendAudit(tx, actor, { action: "catalog.provider.create", targetType: "provider", targetId: row.key, after: { ...input, version: row.version } });
    await notifyConfigChange(tx, { kind: "catalog" });
    return { status: "applied" as const, provider: input, version: row.version };
  });
}
