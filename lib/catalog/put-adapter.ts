import { type Prisma, type PrismaClient, notifyConfigChange } from "../db";
import { type TActor, canonicalJson, appendAudit } from "../audit";
import { invalid, notFound } from "../errors";
import { adapterOf, providerOf } from "./catalog-rows";
import { changeSummary, holdForCompliance } from "./compliance-hold";
import { baseUrlProblem } from "./outbound-safety";
import type { TAdapter } from "./schemas";
import { adapterSecretErrors, adapterSecurityReasons, otherReviewerExists } from "./security-review";

/** 422 for an adapter that may not be stored at all: a base URL the outbound rules refuse, a literal secret in a header. */
export function adapterInputErrors(input: TAdapter, prefix = "") {
  const problem = baseUrlProblem(input.baseUrl);
  return [...(problem ? [{ path: `${prefix}baseUrl`, message: problem }] : []), ...adapterSecretErrors(input, prefix)];
}

/**
 * Creates or replaces a provider's execute-mode adapter. The base URL must pass the outbound
 * rules (https; loopback http only in demo mode and tests; SWITCHYARD_PROVIDER_HOSTS) and the
 * headers hold no literal secret (422). A new adapter, or a new kind, base URL or template, decides
 * where the provider's credential and the callers' data go: it waits for someone else holding
 * catalog.approve_compliance (202 pending), unless nobody else could (single_reviewer).
 * A new model, context window or timeout applies at once.
 */
export async function putAdapter(prisma: PrismaClient, actor: TActor, providerKey: string, input: TAdapter) {
  const errors = adapterInputErrors(input);
  if (errors.length > 0) throw invalid(errors);
  return prisma.$transaction(async (tx) => {
    const provider = await tx.provider.findUnique({ where: { key: providerKey } });
    if (!provider) throw notFound("provider", providerKey);
    const row = await tx.providerAdapter.findUnique({ where: { providerKey } });
    const before = row ? adapterOf(row) : null;
    if (before && canonicalJson(before) === canonicalJson(input)) return { status: "unchanged" as const, adapter: input };
    const reasons = adapterSecurityReasons(before, input, provider.credentialRef);
    const alone = reasons.length > 0 && !(await otherReviewerExists(tx, actor));
    if (reasons.length > 0 && !alone) {
      const change = await holdForCompliance(
        tx,
        actor,
        { type: "adapter", key: providerKey, version: null },
        before ? "update" : "create",
        input,
        reasons,
        before,
      );
      return { status: "pending" as const, change: changeSummary(change) };
    }
    await writeAdapter(tx, actor, provider, before, input, alone ? { single_reviewer: true } : {});
    return { status: "applied" as const, adapter: input };
  });
}

/** Writes an adapter (what putAdapter applies at once, or an approved change) and audits before/after. */
export async function writeAdapter(
  tx: Prisma.TransactionClient,
  actor: TActor,
  provider: Parameters<typeof providerOf>[0],
  before: TAdapter | null,
  input: TAdapter,
  extra: Record<string, unknown> = {},
) {
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
  await tx.providerAdapter.upsert({ where: { providerKey: p.key }, create: { providerKey: p.key, ...data }, update: data });
  await appendAudit(tx, actor, { action: "catalog.adapter.put", targetType: "provider_adapter", targetId: p.key, before, after: { ...input, ...extra } });
  await notifyConfigChange(tx, { kind: "catalog" });
}
