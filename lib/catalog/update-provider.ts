import type { PrismaClient } from "../db/generated/client";
import type { TActor } from "../audit/actor";
import { canonicalJson } from "../audit/canonical";
import { parseInput } from "../errors/api-errors";
import { providerOf } from "./catalog-rows";
import { changeSummary, holdForCompliance, lockProvider, providerComplianceReasons, refuseIfNamed, writeProvider } from "./catalog-helpers";
import { ZProvider, type TProviderPatch } from "./schemas";

/**
 * Edits a provider (disabling and renaming included). A change to its certifications or regions,
 * or enabling it, waits for compliance approval as a whole; the rest applies at once. Disabling or
 * renaming a provider a live policy names is refused either way, before anything is held.
 */
export async function updateProvider(prisma: PrismaClient, actor: TActor, key: string, patch: TProviderPatch) {
  return prisma.$transaction(async (tx) => {
    const before = await lockProvider(tx, key);
    const current = providerOf(before);
    const next = parseInput(ZProvider, { ...current, ...stripUndefined(patch) });
    if (canonicalJson(next) === canonicalJson(current)) return { status: "unchanged" as const, provider: current, version: before.version };
    if (next.key !== key) await refuseIfNamed(tx, key, "rename");
    if (current.enabled && !next.enabled) await refuseIfNamed(tx, key, "disable");
    const reasons = providerComplianceReasons(current, next);
    if (reasons.length > 0) {
      const change = await holdForCompliance(tx, actor, { type: "provider", key, version: before.version }, "update", next, reasons);
      return { status: "pending" as const, change: changeSummary(change) };
    }
    const row = await writeProvider(tx, actor, before, next, "catalog.provider.update");
    return { status: "applied" as const, provider: next, version: row.version };
  });
}

export function stripUndefined<T extends Record<string, unknown>>(o: T): Partial<T> {
  return Object.fromEntries(Object.entries(o).filter(([, v]) => v !== undefined)) as Partial<T>;
}
