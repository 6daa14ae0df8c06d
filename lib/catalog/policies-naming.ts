import type { Prisma } from "../db";

export type TPolicyRef = { operation: string; version: number; status: "active" | "shadow"; id: string };

/**
 * The active and shadow factor lists that name a provider (in `providers` or a region rule's
 * allow-list): those a disable, rename or delete of it would break.
 */
export async function policiesNamingProvider(tx: Prisma.TransactionClient, providerKey: string): Promise<TPolicyRef[]> {
  const pointers = await tx.operationPolicy.findMany({ select: { activeVersionId: true, shadowVersionId: true } });
  const ids = pointers.flatMap((p) => [p.activeVersionId, p.shadowVersionId]).filter((id): id is string => id !== null);
  if (ids.length === 0) return [];
  const versions = await tx.factorListVersion.findMany({ where: { id: { in: ids } }, select: { id: true, operationKey: true, version: true, document: true } });
  const shadowIds = new Set(pointers.map((p) => p.shadowVersionId));
  return versions
    .filter((v) => documentNames(v.document, providerKey))
    .map((v) => ({ operation: v.operationKey, version: v.version, status: shadowIds.has(v.id) ? ("shadow" as const) : ("active" as const), id: v.id }))
    .sort((a, b) => a.operation.localeCompare(b.operation) || a.version - b.version);
}

function documentNames(document: unknown, providerKey: string): boolean {
  const doc = document as { providers?: unknown; regions?: Record<string, { providers?: unknown }> } | null;
  if (!doc) return false;
  if (Array.isArray(doc.providers) && doc.providers.includes(providerKey)) return true;
  return Object.values(doc.regions ?? {}).some((r) => Array.isArray(r?.providers) && r.providers.includes(providerKey));
}

export function describePolicies(refs: readonly TPolicyRef[]): string {
  return refs.map((r) => `${r.operation} v${r.version} (${r.status})`).join(", ");
}

/** Active or shadow factor lists of an operation. */
export async function policiesOfOperation(tx: Prisma.TransactionClient, operationKey: string): Promise<TPolicyRef[]> {
  const p = await tx.operationPolicy.findUnique({ where: { operationKey } });
  const ids = [p?.activeVersionId, p?.shadowVersionId].filter((id): id is string => !!id);
  if (ids.length === 0) return [];
  const versions = await tx.factorListVersion.findMany({ where: { id: { in: ids } }, select: { id: true, operationKey: true, version: true } });
  return versions.map((v) => ({
    operation: v.operationKey,
    version: v.version,
    status: v.id === p?.shadowVersionId ? ("shadow" as const) : ("active" as const),
    id: v.id,
  }));
}
