import type { PrismaClient } from "../db";
import { type TActor, canonicalJson } from "../audit";
import { invalid, parseInput } from "../errors";
import { providerOf } from "./catalog-rows";
import { changeSummary, holdForCompliance, providerComplianceReasons } from "./compliance-hold";
import { lockProvider, refuseIfNamed, writeProvider } from "./catalog-writes";
import { ZProvider, type TProviderPatch } from "./schemas";
import { credentialRefErrors, otherReviewerExists, providerSecurityReasons } from "./security-review";
import { refuseUndeclared } from "./undeclared-names";

/**
 * Edits a provider (disabling and renaming included). A change to its certifications or regions,
 * or enabling it, waits for compliance approval as a whole, and so does pointing its credential
 * reference elsewhere (security-review.ts); the rest applies at once. A reference outside the
 * secrets namespace is 422 naming credentialRef. Disabling or renaming a provider a live policy
 * names is refused either way, before anything is held.
 */
export type TUpdateProviderOptions = {
  /** Kept as the audit entry's reason. */
  reason?: string;
  /** The console's form: a quota change needs a reason (422 on quotaReason without one). */
  requireQuotaReason?: boolean;
};

export async function updateProvider(prisma: PrismaClient, actor: TActor, key: string, patch: TProviderPatch, opts: TUpdateProviderOptions = {}) {
  const refused = credentialRefErrors(patch.credentialRef ?? null, "credentialRef");
  if (refused.length > 0) throw invalid(refused, "the credential reference is outside the secrets namespace");
  return prisma.$transaction(async (tx) => {
    const before = await lockProvider(tx, key);
    const current = providerOf(before);
    const next = parseInput(ZProvider, { ...current, ...stripUndefined(patch) });
    if (canonicalJson(next) === canonicalJson(current)) return { status: "unchanged" as const, provider: current, version: before.version };
    await refuseUndeclared(tx, { provider: next });
    if (opts.requireQuotaReason && !opts.reason?.trim() && canonicalJson(next.quotas) !== canonicalJson(current.quotas)) {
      throw invalid([{ path: "quotaReason", message: "say why the quotas change" }], "a quota change needs a reason");
    }
    if (next.key !== key) await refuseIfNamed(tx, key, "rename");
    if (current.enabled && !next.enabled) await refuseIfNamed(tx, key, "disable");
    const compliance = providerComplianceReasons(current, next);
    const security = providerSecurityReasons(current, next);
    const alone = compliance.length === 0 && security.length > 0 && !(await otherReviewerExists(tx, actor));
    if (compliance.length + security.length > 0 && !alone) {
      const reasons = [...compliance, ...security];
      const change = await holdForCompliance(tx, actor, { type: "provider", key, version: before.version }, "update", next, reasons, current);
      return { status: "pending" as const, change: changeSummary(change) };
    }
    const row = await writeProvider(tx, actor, before, next, "catalog.provider.update", alone ? { single_reviewer: true } : {}, opts.reason?.trim() || null);
    return { status: "applied" as const, provider: next, version: row.version };
  });
}

export function stripUndefined<T extends Record<string, unknown>>(o: T): Partial<T> {
  return Object.fromEntries(Object.entries(o).filter(([, v]) => v !== undefined)) as Partial<T>;
}
