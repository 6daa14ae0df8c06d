import { parseFactorList, type TFactorList } from "../../router-core/index";
import type { PrismaClient } from "../db/generated/client";
import type { TActor } from "../audit/actor";
import { canonicalJson } from "../audit/canonical";
import { invalid, type TFieldError } from "../errors/api-errors";
import { createFactorListDraft } from "../controlplane/create-factor-list-draft";
import { submitFactorList } from "../controlplane/submit-factor-list";
import { adapterOf, limitsOf, operationOf, providerOf } from "./catalog-rows";
import { operationComplianceReasons, providerComplianceReasons } from "./catalog-helpers";
import { createOperation } from "./create-operation";
import { createProvider } from "./create-provider";
import { deleteAdapter } from "./delete-adapter";
import { adapterInputErrors, putAdapter } from "./put-adapter";
import { putGatewayLimits } from "./put-gateway-limits";
import { updateOperation } from "./update-operation";
import { updateProvider } from "./update-provider";
import type { TBundle } from "./bundle";
import type { TOperation, TProvider } from "./schemas";
import { adapterSecurityReasons, credentialRefErrors, otherReviewerExists, providerSecurityReasons } from "./security-review";

/**
 * One planned change. `applied`: takes effect at once; `pending`: waits for compliance (a
 * compliance-moving or security-class change, lib/catalog/security-review.ts);
 * `in_review`: a factor-list version that waits for an approver (and compliance when it
 * touches gates or regions) and an activation, as any other version does.
 */
export type TBundleChange = {
  target: string;
  action: "create" | "update" | "delete" | "request" | "draft";
  effect: "applied" | "pending" | "in_review";
  detail: string;
};

export type TApplyResult = { dryRun: boolean; changes: TBundleChange[]; summary: string };

// Key order is not content (jsonb columns reorder keys): compare canonical JSON.
const same = (a: unknown, b: unknown) => canonicalJson(a ?? null) === canonicalJson(b ?? null);

function providerOnly(p: TBundle["providers"][number]): TProvider {
  const { adapter: _adapter, ...rest } = p;
  return rest;
}
function operationOnly(o: TBundle["operations"][number]): TOperation {
  const { gatewayLimits: _limits, factorList: _fl, ...rest } = o;
  return rest;
}

/**
 * Plans a bundle against the database: what would be created, updated, held for compliance or
 * put in review. Idempotent by construction: what already matches (including a held change or a
 * version in review with the same content) plans nothing, so applying twice changes nothing.
 * Providers and operations the bundle leaves out are left alone (a bundle never deletes them).
 */
export async function planBundle(
  prisma: PrismaClient,
  bundle: TBundle,
  actor: TActor | null = null,
): Promise<{ changes: TBundleChange[]; factorLists: Map<string, TFactorList> }> {
  const errors: TFieldError[] = [];
  const changes: TBundleChange[] = [];
  const factorLists = new Map<string, TFactorList>();
  const [providers, adapters, operations, limits, pending] = await Promise.all([
    prisma.provider.findMany(),
    prisma.providerAdapter.findMany(),
    prisma.operation.findMany(),
    prisma.gatewayOperation.findMany(),
    prisma.catalogChange.findMany({ where: { status: "pending" } }),
  ]);
  const providerBy = new Map(providers.map((p) => [p.key, p]));
  const adapterBy = new Map(adapters.map((a) => [a.providerKey, a]));
  const operationBy = new Map(operations.map((o) => [o.key, o]));
  const limitsBy = new Map(limits.map((l) => [l.operationKey, l]));
  const held = (type: string, key: string, payload: unknown) => pending.some((c) => c.targetType === type && c.targetKey === key && same(c.payload, payload));
  const knownProviders = new Set([...providers.map((p) => p.key), ...bundle.providers.map((p) => p.key)]);
  // Security-class changes wait only where someone else could approve them (as putAdapter decides).
  const reviewed = actor ? await otherReviewerExists(prisma, actor) : true;

  bundle.providers.forEach((bp, i) => {
    const next = providerOnly(bp);
    const row = providerBy.get(bp.key);
    errors.push(...credentialRefErrors(next.credentialRef, `providers.${i}.credentialRef`));
    if (!row)
      changes.push({
        target: `provider ${bp.key}`,
        action: "create",
        effect: "applied",
        detail: `regions ${next.regions.join(", ")}; certifications ${next.certifications.join(", ") || "none"}`,
      });
    else {
      const current = providerOf(row);
      if (!same(current, next) && !held("provider", bp.key, next)) {
        const security = providerSecurityReasons(current, next);
        const reasons = [...providerComplianceReasons(current, next), ...(reviewed ? security : [])];
        changes.push({
          target: `provider ${bp.key}`,
          action: reasons.length > 0 ? "request" : "update",
          effect: reasons.length > 0 ? "pending" : "applied",
          detail: reasons.join("; ") || changedFields(current, next),
        });
      }
    }
    if (bp.adapter) {
      errors.push(...adapterInputErrors(bp.adapter, `providers.${i}.adapter.`));
      const a = adapterBy.get(bp.key);
      const before = a ? adapterOf(a) : null;
      if (!same(before, bp.adapter) && !held("adapter", bp.key, bp.adapter)) {
        const reasons = reviewed ? adapterSecurityReasons(before, bp.adapter, next.credentialRef) : [];
        changes.push({
          target: `adapter ${bp.key}`,
          action: reasons.length > 0 ? "request" : a ? "update" : "create",
          effect: reasons.length > 0 ? "pending" : "applied",
          detail: reasons.join("; ") || `${bp.adapter.kind} → ${bp.adapter.baseUrl}`,
        });
      }
    } else if (bp.adapter === null && adapterBy.has(bp.key)) {
      changes.push({ target: `adapter ${bp.key}`, action: "delete", effect: "applied", detail: "adapter: null" });
    }
  });

  for (const [i, bo] of bundle.operations.entries()) {
    const next = operationOnly(bo);
    const row = operationBy.get(bo.key);
    if (!row) changes.push({ target: `operation ${bo.key}`, action: "create", effect: "applied", detail: bo.description });
    else {
      const current = operationOf(row);
      if (!same(current, next) && !held("operation", bo.key, next)) {
        const reasons = operationComplianceReasons(current, next);
        changes.push({
          target: `operation ${bo.key}`,
          action: reasons.length > 0 ? "request" : "update",
          effect: reasons.length > 0 ? "pending" : "applied",
          detail: reasons.join("; ") || changedFields(current, next),
        });
      }
    }
    if (bo.gatewayLimits) {
      const l = limitsBy.get(bo.key);
      if (!l || !same(limitsOf(l), bo.gatewayLimits))
        changes.push({
          target: `gateway limits ${bo.key}`,
          action: l ? "update" : "create",
          effect: "applied",
          detail: `deadline ${bo.gatewayLimits.deadlineMs} ms, ${bo.gatewayLimits.maxAttempts} attempts`,
        });
    }
    if (bo.factorList) {
      const parsed = parseFactorList(bo.factorList);
      if (!parsed.ok) {
        for (const e of parsed.errors) errors.push({ path: `operations.${i}.factorList${e.path ? `.${e.path}` : ""}`, message: e.message });
        continue;
      }
      const fl = parsed.value;
      if (fl.operation !== bo.key) errors.push({ path: `operations.${i}.factorList.operation`, message: `must be ${bo.key}, the operation it sits under` });
      fl.providers.forEach((p, j) => {
        if (!knownProviders.has(p))
          errors.push({ path: `operations.${i}.factorList.providers.${j}`, message: `unknown provider "${p}" (neither in the bundle nor on this instance)` });
      });
      if (await factorListPlanned(prisma, bo.key, fl)) continue;
      factorLists.set(bo.key, fl);
      changes.push({
        target: `factor list ${bo.key}`,
        action: "draft",
        effect: "in_review",
        detail: "a new version in review: needs an approver (and compliance for gates or regions), then activation",
      });
    }
  }
  if (errors.length > 0) throw invalid(errors, "the bundle is invalid");
  return { changes, factorLists };
}

/** The same content is already active, or waiting in review or approved: nothing to add. */
async function factorListPlanned(prisma: PrismaClient, operationKey: string, fl: TFactorList): Promise<boolean> {
  const versions = await prisma.factorListVersion.findMany({
    where: { operationKey, status: { in: ["active", "in_review", "approved", "draft", "shadow"] } },
    select: { document: true },
  });
  return versions.some((v) => same(v.document, fl));
}

function changedFields(a: Record<string, unknown>, b: Record<string, unknown>): string {
  return Object.keys(b)
    .filter((k) => !same(a[k], b[k]))
    .join(", ");
}

/**
 * Applies a bundle (or, with dryRun, only plans it). Each change goes through the same server
 * function the API uses, so what moves compliance is held and factor lists land in review:
 * applying never bypasses four-eyes or compliance. Changes apply one by one in order
 * (providers, adapters, operations, limits, factor lists); after a failure, applying again
 * continues where it stopped, since what already matches plans nothing.
 */
export async function applyBundle(prisma: PrismaClient, actor: TActor, bundle: TBundle, opts: { dryRun: boolean }): Promise<TApplyResult> {
  const { changes, factorLists } = await planBundle(prisma, bundle, actor);
  const result = (applied: TBundleChange[]): TApplyResult => ({ dryRun: opts.dryRun, changes: applied, summary: summarize(applied) });
  if (opts.dryRun || changes.length === 0) return result(changes);
  const targets = new Set(changes.map((c) => c.target));
  for (const bp of bundle.providers) {
    const next = providerOnly(bp);
    if (targets.has(`provider ${bp.key}`)) {
      if (await prisma.provider.findUnique({ where: { key: bp.key }, select: { key: true } })) await updateProvider(prisma, actor, bp.key, next);
      else await createProvider(prisma, actor, next);
    }
    if (targets.has(`adapter ${bp.key}`)) {
      if (bp.adapter) await putAdapter(prisma, actor, bp.key, bp.adapter);
      else await deleteAdapter(prisma, actor, bp.key);
    }
  }
  for (const bo of bundle.operations) {
    const next = operationOnly(bo);
    if (targets.has(`operation ${bo.key}`)) {
      if (await prisma.operation.findUnique({ where: { key: bo.key }, select: { key: true } })) {
        const { key: _key, ...patch } = next;
        await updateOperation(prisma, actor, bo.key, patch);
      } else await createOperation(prisma, actor, next);
    }
    if (targets.has(`gateway limits ${bo.key}`) && bo.gatewayLimits) await putGatewayLimits(prisma, actor, bo.key, bo.gatewayLimits);
    const fl = factorLists.get(bo.key);
    if (fl) {
      const draft = await createFactorListDraft(prisma, actor, {
        document: fl as unknown as Record<string, unknown>,
        changeNote: "Applied from a configuration bundle",
      });
      await submitFactorList(prisma, actor, draft.id);
    }
  }
  return result(changes);
}

function summarize(changes: TBundleChange[]): string {
  if (changes.length === 0) return "no changes";
  const count = (effect: TBundleChange["effect"]) => changes.filter((c) => c.effect === effect).length;
  const parts = [`${count("applied")} applied`, `${count("pending")} waiting for compliance`, `${count("in_review")} factor lists in review`];
  return `${changes.length} change${changes.length === 1 ? "" : "s"}: ${parts.join(", ")}`;
}
