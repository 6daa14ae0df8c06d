import type { Prisma, PrismaClient } from "../db/generated/client";
import type { TActor } from "../audit/actor";
import { canonicalJson } from "../audit/canonical";
import { appendAudit } from "../audit/append-audit";
import { notifyConfigChange } from "../db/notify";
import { invalid, notFound } from "../errors/api-errors";
import { adapterOf, providerOf } from "./catalog-rows";
import { baseUrlProblem } from "./outbound-safety";
import type { TAdapter } from "./schemas";

/**
 * Creates or replaces a provider's execute-mode adapter. The base URL must pass the outbound
 * rules (https; loopback http only in demo mode and tests; SWITCHYARD_PROVIDER_HOSTS).
 */
export async function putAdapter(prisma: PrismaClient, actor: TActor, providerKey: string, input: TAdapter) {
  const problem = baseUrlProblem(input.baseUrl);
  if (problem) throw invalid([{ path: "baseUrl", message: problem }]);
  return prisma.$transaction(async (tx) => {
    const provider = await tx.provider.findUnique({ where: { key: providerKey } });
    if (!provider) throw notFound("provider", providerKey);
    const before = await tx.providerAdapter.findUnique({ where: { providerKey } });
    const p = providerOf(provider);
    const data = {
      kind: input.kind,
      baseUrl: input.baseUrl,
      model: input.model,
      contextWindow: input.contextWindow,
      timeoutMs: input.timeoutMs,
      options: input.options as Prisma.InputJsonValue,
      credentialRef: p.credentialRef,
      inputPricePer1k: p.costPerInputToken1k,
      outputPricePer1k: p.costPerOutputToken1k,
    };
    if (before && canonicalJson(adapterOf(before)) === canonicalJson(input)) return { status: "unchanged" as const, adapter: input };
    await tx.providerAdapter.upsert({ where: { providerKey }, create: { providerKey, ...data }, update: data });
    await appendAudit(tx, actor, {
      action: "catalog.adapter.put",
      targetType: "provider_adapter",
      targetId: providerKey,
      before: before ? adapterOf(before) : null,
      after: input,
    });
    await notifyConfigChange(tx, { kind: "catalog" });
    return { status: "applied" as const, adapter: input };
  });
}
