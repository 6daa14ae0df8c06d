import type { Operation, Prisma, Provider, ProviderAdapter, GatewayOperation } from "../db";
import { redactAdapterOptions } from "./adapter-secrets";
import { ZQuota, type TAdapter, type TGatewayLimits, type TOperation, type TProvider } from "./schemas";

/** Catalogue rows as the API and the bundle speak them (camelCase, numbers, no database ids). */

export function providerOf(row: Provider): TProvider {
  const quotas = ZQuota.array().safeParse(row.quotas);
  return {
    key: row.key,
    displayName: row.displayName,
    regions: row.supportedRegions,
    certifications: row.complianceTags,
    costPerRequest: Number(row.costPerRequest),
    costPerInputToken1k: row.costPerInputToken1k === null ? null : Number(row.costPerInputToken1k),
    costPerOutputToken1k: row.costPerOutputToken1k === null ? null : Number(row.costPerOutputToken1k),
    quotas: quotas.success ? quotas.data : [],
    credentialRef: row.credentialRef,
    enabled: row.enabled,
  };
}

export function providerData(p: TProvider) {
  return {
    key: p.key,
    displayName: p.displayName,
    supportedRegions: [...p.regions],
    complianceTags: [...p.certifications],
    costPerRequest: p.costPerRequest.toFixed(6),
    costPerInputToken1k: p.costPerInputToken1k === null ? null : p.costPerInputToken1k.toFixed(6),
    costPerOutputToken1k: p.costPerOutputToken1k === null ? null : p.costPerOutputToken1k.toFixed(6),
    quotas: p.quotas as unknown as Prisma.InputJsonValue,
    credentialRef: p.credentialRef,
    enabled: p.enabled,
  };
}

export function operationOf(row: Operation): TOperation {
  return {
    key: row.key,
    description: row.description,
    criticality: row.criticality,
    regionRequirements: (row.regionRequirements ?? {}) as Record<string, string[]>,
    enabled: row.enabled,
  };
}

export function operationData(o: TOperation) {
  return {
    key: o.key,
    description: o.description,
    criticality: o.criticality,
    regionRequirements: o.regionRequirements as Prisma.InputJsonValue,
    enabled: o.enabled,
  };
}

export function adapterOf(row: ProviderAdapter): TAdapter {
  return {
    kind: row.kind as TAdapter["kind"],
    baseUrl: row.baseUrl,
    model: row.model,
    contextWindow: row.contextWindow,
    timeoutMs: row.timeoutMs,
    options: redactAdapterOptions((row.options ?? {}) as Record<string, unknown>),
  };
}

export function limitsOf(row: GatewayOperation): TGatewayLimits {
  return {
    deadlineMs: row.deadlineMs,
    maxAttempts: row.maxAttempts,
    retryBudgetRatio: row.retryBudgetRatio,
    retryBudgetMinPerSecond: row.retryBudgetMinPerSecond,
    costCapPerMinute: row.costCapPerMinute,
    costCapPerDay: row.costCapPerDay,
    maxFallbackSeconds: row.maxFallbackSeconds,
    cacheTtlSeconds: row.cacheTtlSeconds,
    idempotencyWindowSeconds: row.idempotencyWindowSeconds,
  };
}

/** Order-insensitive equality of two string lists (regions, certifications). */
export function sameSet(a: readonly string[], b: readonly string[]): boolean {
  return a.length === b.length && a.every((x) => b.includes(x));
}

export function sameRequirements(a: Record<string, string[]>, b: Record<string, string[]>): boolean {
  const ka = Object.keys(a).filter((k) => a[k]!.length > 0);
  const kb = Object.keys(b).filter((k) => b[k]!.length > 0);
  return sameSet(ka, kb) && ka.every((k) => sameSet(a[k]!, b[k]!));
}
