import { type Prisma, type Provider, notifyConfigChange } from "../db";
import { type TActor, appendAudit } from "../audit";
import { ContractError, invalid, notFound } from "../errors";
import { operationData, operationOf, providerData, providerOf } from "./catalog-rows";
import { describePolicies, policiesNamingProvider, policiesOfOperation } from "./policies-naming";
import type { TOperation, TProvider } from "./schemas";

type TTx = Prisma.TransactionClient;

/** Locks a provider row for the rest of the transaction (two edits apply one after the other). */
export async function lockProvider(tx: TTx, key: string): Promise<Provider> {
  await tx.$queryRaw`select id from provider where key = ${key} for update`;
  const row = await tx.provider.findUnique({ where: { key } });
  if (!row) throw notFound("provider", key);
  return row;
}

export async function lockOperation(tx: TTx, key: string) {
  await tx.$queryRaw`select id from operation where key = ${key} for update`;
  const row = await tx.operation.findUnique({ where: { key } });
  if (!row) throw notFound("operation", key);
  return row;
}

/**
 * Referential safety: a provider an active or shadow policy names cannot be disabled, renamed or
 * deleted (routing would silently lose a candidate or point at nothing). 409 naming the policies.
 */
export async function refuseIfNamed(tx: TTx, key: string, doing: "disable" | "rename" | "delete"): Promise<void> {
  const refs = await policiesNamingProvider(tx, key);
  if (refs.length === 0) return;
  throw new ContractError(
    "provider_in_use",
    `cannot ${doing} provider ${key}: ${refs.length === 1 ? "the policy" : "the policies"} ${describePolicies(refs)} ${refs.length === 1 ? "names" : "name"} it; activate versions without it first`,
    [{ path: doing === "rename" ? "key" : doing === "disable" ? "enabled" : "key", message: `named by ${describePolicies(refs)}` }],
  );
}

export async function refuseIfOperationLive(tx: TTx, key: string, doing: string): Promise<void> {
  const refs = await policiesOfOperation(tx, key);
  if (refs.length === 0) return;
  throw new ContractError("operation_in_use", `cannot ${doing} operation ${key}: ${describePolicies(refs)} routes it`, [
    { path: "enabled", message: `live policies: ${describePolicies(refs)}` },
  ]);
}

/**
 * The adapter row carries the provider's credential reference and token prices (the gateway
 * reads them from there): rewritten whenever either side changes.
 */
export async function syncAdapter(tx: TTx, provider: TProvider): Promise<void> {
  await tx.providerAdapter.updateMany({
    where: { providerKey: provider.key },
    data: { credentialRef: provider.credentialRef, inputPricePer1k: provider.costPerInputToken1k, outputPricePer1k: provider.costPerOutputToken1k },
  });
}

/** Writes a provider's next state (a rename moves its adapter too), bumps its version, audits it. */
export async function writeProvider(
  tx: TTx,
  actor: TActor,
  before: Provider,
  next: TProvider,
  action: string,
  extra: Record<string, unknown> = {},
  reason: string | null = null,
) {
  if (next.key !== before.key) {
    await refuseIfNamed(tx, before.key, "rename");
    if (await tx.provider.findUnique({ where: { key: next.key }, select: { key: true } }))
      throw invalid([{ path: "key", message: `a provider ${next.key} already exists` }]);
  }
  if (before.enabled && !next.enabled) await refuseIfNamed(tx, before.key, "disable");
  const row = await tx.provider.update({ where: { key: before.key }, data: { ...providerData(next), version: { increment: 1 } } });
  if (next.key !== before.key) {
    const adapter = await tx.providerAdapter.findUnique({ where: { providerKey: before.key } });
    if (adapter) {
      await tx.providerAdapter.delete({ where: { providerKey: before.key } });
      await tx.providerAdapter.create({ data: { ...adapter, providerKey: next.key, options: adapter.options as Prisma.InputJsonValue } });
    }
  }
  await syncAdapter(tx, next);
  await appendAudit(tx, actor, {
    action,
    targetType: "provider",
    targetId: row.key,
    before: { ...providerOf(before), version: before.version },
    after: { ...next, version: row.version, ...extra },
    reason,
  });
  await notifyConfigChange(tx, { kind: "catalog" });
  return row;
}

export async function writeOperation(
  tx: TTx,
  actor: TActor,
  before: Awaited<ReturnType<typeof lockOperation>>,
  next: TOperation,
  action: string,
  extra: Record<string, unknown> = {},
) {
  if (before.enabled && !next.enabled) await refuseIfOperationLive(tx, before.key, "disable");
  const row = await tx.operation.update({ where: { key: before.key }, data: { ...operationData(next), key: before.key, version: { increment: 1 } } });
  await appendAudit(tx, actor, {
    action,
    targetType: "operation",
    targetId: row.key,
    before: { ...operationOf(before), version: before.version },
    after: { ...next, version: row.version, ...extra },
  });
  await notifyConfigChange(tx, { kind: "catalog" });
  return row;
}
