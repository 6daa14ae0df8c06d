import { parseFactorList, type TFactorList } from "../../router-core/index";
import type { Prisma, PrismaClient, Provider, ProviderAdapter } from "../db";
import { type TActor, canonicalJson } from "../audit";
import { ContractError, invalid, type TFieldError } from "../errors";
import { createFactorListDraft, submitFactorList } from "../controlplane";
import { adapterOf, limitsOf, operationOf, providerOf } from "./catalog-rows";
import { operationComplianceReasons, providerComplianceReasons } from "./compliance-hold";
import { createOperation } from "./create-operation";
import { createProvider } from "./create-provider";
import { deleteAdapter } from "./delete-adapter";
import { adapterInputErrors, putAdapter } from "./put-adapter";
import { putGatewayLimits } from "./put-gateway-limits";
import { updateOperation } from "./update-operation";
import { updateProvider } from "./update-provider";
import type { TBundle } from "./bundle";
import { planNotifications, writeNotificationChannel } from "./bundle-notifications";
import { planDeclarations, writeDeclarations } from "./bundle-declarations";
import type { TDeclaredNames } from "../controlplane";
import { operationNameErrors, providerNameErrors } from "./undeclared-names";
import { resolveBundle, type TResolvedBundle, type TResolvedOperation, type TResolvedProvider } from "./resolve-bundle";
import type { TOperation, TProvider } from "./schemas";
import { adapterSecurityReasons, credentialRefErrors, otherReviewerExists, providerSecurityReasons } from "./security-review";

/**
 * One planned change. `applied`: takes effect at once; `pending`: waits for compliance (a
 * compliance-moving or security-class change, lib/catalog/security-review.ts);
 * `in_review`: a factor-list version that waits for an approver (and compliance when it
 * touches gates or regions) and an activation, as any other version does; `refused`: the
 * server refused it (then the whole bundle is refused; `refusal` says how).
 */
export type TBundleChange = {
  target: string;
  /** Where in the bundle: `providers[sinch]`, `operations[SEND_SMS].factorList`. */
  path: string;
  action: "create" | "update" | "delete" | "request" | "draft";
  effect: "applied" | "pending" | "in_review" | "refused";
  detail: string;
  /** A change that clears a credential or zeroes a cost says so. */
  warnings?: string[];
  refusal?: { status: ContractError["status"]; code: ContractError["code"]; fields: TFieldError[] };
};

export type TApplyResult = { dryRun: boolean; changes: TBundleChange[]; summary: string };

// Key order is not content (jsonb columns reorder keys): compare canonical JSON.
const same = (a: unknown, b: unknown) => canonicalJson(a ?? null) === canonicalJson(b ?? null);

function providerOnly(p: TResolvedProvider): TProvider {
  const { adapter: _adapter, ...rest } = p;
  return rest;
}
function operationOnly(o: TResolvedOperation): TOperation {
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
  prisma: Prisma.TransactionClient,
  bundle: TBundle,
  actor: TActor | null = null,
): Promise<{ changes: TBundleChange[]; factorLists: Map<string, TFactorList>; resolved: TResolvedBundle }> {
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
  const resolved = resolveBundle(bundle, { providerBy, adapterBy, operationBy, limitsBy }, errors);
  if (errors.length > 0) throw invalid(errors, "the bundle is invalid");
  const held = (type: string, key: string, payload: unknown) => pending.some((c) => c.targetType === type && c.targetKey === key && same(c.payload, payload));
  const knownProviders = new Set([...providers.map((p) => p.key), ...bundle.providers.map((p) => p.key)]);
  // Security-class changes wait only where someone else could approve them (as putAdapter decides).
  const reviewed = actor ? await otherReviewerExists(prisma, actor) : true;

  // Regions and certifications first: the bundle may declare a name and use it.
  const declarations = await planDeclarations(prisma, bundle, errors, { reviewed, held });
  changes.push(...declarations.changes);
  const ctx: TPlanContext = { errors, changes, providerBy, adapterBy, held, reviewed, declared: declarations.declared };
  resolved.providers.forEach((bp) => planProvider(ctx, bp));

  for (const bo of resolved.operations) {
    const next = operationOnly(bo);
    errors.push(...operationNameErrors(ctx.declared, next, `operations[${bo.key}].`));
    const row = operationBy.get(bo.key);
    if (!row) changes.push({ target: `operation ${bo.key}`, path: `operations[${bo.key}]`, action: "create", effect: "applied", detail: bo.description });
    else {
      const current = operationOf(row);
      if (!same(current, next) && !held("operation", bo.key, next)) {
        const reasons = operationComplianceReasons(current, next);
        changes.push({
          target: `operation ${bo.key}`,
          path: `operations[${bo.key}]`,
          action: reasons.length > 0 ? "request" : "update",
          effect: reasons.length > 0 ? "pending" : "applied",
          detail: editDetail(changedFields(current, next), reasons),
        });
      }
    }
    if (bo.gatewayLimits) {
      const l = limitsBy.get(bo.key);
      if (!l || !same(limitsOf(l), bo.gatewayLimits))
        changes.push({
          target: `gateway limits ${bo.key}`,
          path: `operations[${bo.key}].gatewayLimits`,
          action: l ? "update" : "create",
          effect: "applied",
          detail: `deadline ${bo.gatewayLimits.deadlineMs} ms, ${bo.gatewayLimits.maxAttempts} attempts`,
        });
    }
    if (bo.factorList) {
      const parsed = parseFactorList(bo.factorList);
      if (!parsed.ok) {
        for (const e of parsed.errors) errors.push({ path: `operations[${bo.key}].factorList${e.path ? `.${e.path}` : ""}`, message: e.message });
        continue;
      }
      const fl = parsed.value;
      if (fl.operation !== bo.key)
        errors.push({ path: `operations[${bo.key}].factorList.operation`, message: `must be ${bo.key}, the operation it sits under` });
      fl.providers.forEach((p, j) => {
        if (!knownProviders.has(p))
          errors.push({
            path: `operations[${bo.key}].factorList.providers[${j}]`,
            message: `unknown provider "${p}" (neither in the bundle nor on this instance)`,
          });
      });
      if (await factorListPlanned(prisma, bo.key, fl)) continue;
      factorLists.set(bo.key, fl);
      changes.push({
        target: `factor list ${bo.key}`,
        path: `operations[${bo.key}].factorList`,
        action: "draft",
        effect: "in_review",
        detail: "a new version in review: needs an approver (and compliance for gates or regions), then activation",
      });
    }
  }
  changes.push(...(await planNotifications(prisma, bundle.notifications, errors)));
  if (errors.length > 0) throw invalid(errors, "the bundle is invalid");
  return { changes, factorLists, resolved };
}

type TPlanContext = {
  errors: TFieldError[];
  changes: TBundleChange[];
  providerBy: Map<string, Provider>;
  adapterBy: Map<string, ProviderAdapter>;
  held: (type: string, key: string, payload: unknown) => boolean;
  /** Whether security-class changes wait: only where someone else could approve them. */
  reviewed: boolean;
  /** Regions and certifications declared on the instance or by the bundle. */
  declared: TDeclaredNames;
};

function planProvider(ctx: TPlanContext, bp: TResolvedProvider): void {
  const next = providerOnly(bp);
  const row = ctx.providerBy.get(bp.key);
  ctx.errors.push(...credentialRefErrors(next.credentialRef, `providers[${bp.key}].credentialRef`));
  ctx.errors.push(...providerNameErrors(ctx.declared, next, `providers[${bp.key}].`));
  if (!row)
    ctx.changes.push({
      target: `provider ${bp.key}`,
      path: `providers[${bp.key}]`,
      action: "create",
      effect: "applied",
      detail: `regions ${next.regions.join(", ")}; certifications ${next.certifications.join(", ") || "none"}`,
    });
  else {
    const current = providerOf(row);
    if (!same(current, next) && !ctx.held("provider", bp.key, next)) {
      const security = providerSecurityReasons(current, next);
      const reasons = [...providerComplianceReasons(current, next), ...(ctx.reviewed ? security : [])];
      const warnings = providerWarnings(current, next);
      ctx.changes.push({
        target: `provider ${bp.key}`,
        path: `providers[${bp.key}]`,
        action: reasons.length > 0 ? "request" : "update",
        effect: reasons.length > 0 ? "pending" : "applied",
        detail: editDetail(changedFields(current, next), reasons),
        ...(warnings.length > 0 ? { warnings } : {}),
      });
    }
  }
  if (bp.adapter) {
    ctx.errors.push(...adapterInputErrors(bp.adapter, `providers[${bp.key}].adapter.`));
    const a = ctx.adapterBy.get(bp.key);
    const before = a ? adapterOf(a) : null;
    if (!same(before, bp.adapter) && !ctx.held("adapter", bp.key, bp.adapter)) {
      const reasons = ctx.reviewed ? adapterSecurityReasons(before, bp.adapter, next.credentialRef) : [];
      ctx.changes.push({
        target: `adapter ${bp.key}`,
        path: `providers[${bp.key}].adapter`,
        action: reasons.length > 0 ? "request" : a ? "update" : "create",
        effect: reasons.length > 0 ? "pending" : "applied",
        detail: before ? editDetail(changedFields(before, bp.adapter), reasons) : reasons.join("; ") || `${bp.adapter.kind} → ${bp.adapter.baseUrl}`,
      });
    }
  } else if (bp.adapter === null && ctx.adapterBy.has(bp.key)) {
    ctx.changes.push({ target: `adapter ${bp.key}`, path: `providers[${bp.key}].adapter`, action: "delete", effect: "applied", detail: "adapter: null" });
  }
}

/** The same content is already active, or waiting in review or approved: nothing to add. */
async function factorListPlanned(prisma: Prisma.TransactionClient, operationKey: string, fl: TFactorList): Promise<boolean> {
  const versions = await prisma.factorListVersion.findMany({
    where: { operationKey, status: { in: ["active", "in_review", "approved", "draft", "shadow"] } },
    select: { document: true },
  });
  return versions.some((v) => same(v.document, fl));
}

const shown = (v: unknown) => {
  const text = JSON.stringify(v ?? null);
  return text.length > 80 ? `${text.slice(0, 77)}…` : text;
};

/** Each changed field with its old and new value: `displayName "Sinch" → "Sinch SMS"`. */
function changedFields(a: Record<string, unknown>, b: Record<string, unknown>): string {
  return Object.keys(b)
    .filter((k) => !same(a[k], b[k]))
    .map((k) => `${k} ${shown(a[k])} → ${shown(b[k])}`)
    .join("; ");
}

const COSTS = ["costPerRequest", "costPerInputToken1k", "costPerOutputToken1k"] as const;

/** What an edit loses that is easy to lose by accident: a credential, a price. */
function providerWarnings(a: TProvider, b: TProvider): string[] {
  const warnings: string[] = [];
  if (a.credentialRef && !b.credentialRef) warnings.push(`clears the credential reference ${a.credentialRef}: execute mode will send no credential`);
  for (const k of COSTS)
    if ((a[k] ?? 0) > 0 && !((b[k] ?? 0) > 0)) warnings.push(`zeroes ${k} (was ${a[k]}): routing and cost caps will count this provider as free`);
  return warnings;
}

/** The plan's detail of an edit: old → new per field, and why it waits when it does. */
function editDetail(fields: string, reasons: string[]): string {
  return reasons.length > 0 ? `${fields}; waits because: ${reasons.join("; ")}` : fields;
}

/**
 * Applies a bundle whole or not at all. Plan and writes run in one transaction through the same
 * server functions the API uses (so what moves compliance is held and factor lists land in
 * review), each change in a savepoint so that every refusal is collected, not just the first.
 * Any refusal rolls the whole transaction back, audit entries included: nothing is written and
 * the refusal names every refused change. A held change is part of the bundle's outcome (the
 * plan says so): the rest applies and the held part waits for its reviewer, atomically. A dry
 * run is the same path ending in a rollback, so it predicts every refusal apply would give.
 */
export async function applyBundle(prisma: PrismaClient, actor: TActor, bundle: TBundle, opts: { dryRun: boolean }): Promise<TApplyResult> {
  try {
    const changes = await prisma.$transaction(
      async (tx) => {
        const { changes, factorLists, resolved } = await planBundle(tx, bundle, actor);
        const planned = (target: string) => changes.find((c) => c.target === target);
        await writeDeclarations(joined(tx), actor, bundle, (target, write) => step(tx, planned(target), write));
        await writeBundle(tx, actor, resolved, changes, factorLists);
        for (const c of bundle.notifications ?? []) {
          await step(
            tx,
            changes.find((x) => x.target === `notification channel ${c.name}`),
            () => writeNotificationChannel(tx, actor, c),
          );
        }
        const refused = changes.filter((c) => c.effect === "refused");
        if (opts.dryRun) throw new RollBack(changes);
        if (refused.length > 0) throw refusalOf(changes);
        return changes;
      },
      { maxWait: 10_000, timeout: 120_000 },
    );
    return { dryRun: false, changes, summary: summarize(changes, false) };
  } catch (err) {
    if (err instanceof RollBack) return { dryRun: true, changes: err.changes, summary: summarize(err.changes, true) };
    throw err;
  }
}

/** Thrown to roll a dry run back; carries what the run found. */
class RollBack extends Error {
  constructor(readonly changes: TBundleChange[]) {
    super("dry run");
  }
}

/** The bundle's refusal: the first refused change's status and code, every refused change in the message and fields. */
function refusalOf(changes: TBundleChange[]): ContractError {
  const refused = changes.filter((c) => c.effect === "refused");
  const first = refused[0]!.refusal!;
  const message = `the bundle was not applied and nothing was written: ${refused.map((c) => `${c.target}: ${c.detail}`).join("; ")}`;
  return new ContractError(
    first.code,
    message,
    refused.flatMap((c) => c.refusal!.fields),
  );
}

/**
 * The server functions open their own transactions; here they join the bundle's instead, so
 * their writes and audit entries commit or roll back with it.
 */
function joined(tx: Prisma.TransactionClient): PrismaClient {
  return new Proxy(tx, {
    get: (t, p, r) => (p === "$transaction" ? (fn: (inner: Prisma.TransactionClient) => unknown) => fn(tx) : Reflect.get(t, p, r)),
  }) as unknown as PrismaClient;
}

/**
 * Runs one change in a savepoint; a refusal (an API error: 409 in use, 422, 403 four-eyes) rolls
 * back only that change and marks it refused, so the run goes on to find the others.
 */
async function step(tx: Prisma.TransactionClient, change: TBundleChange | undefined, write: () => Promise<unknown>): Promise<void> {
  if (!change) return;
  await tx.$executeRawUnsafe("savepoint bundle_change");
  try {
    await write();
    await tx.$executeRawUnsafe("release savepoint bundle_change");
  } catch (err) {
    if (!(err instanceof ContractError)) throw err;
    await tx.$executeRawUnsafe("rollback to savepoint bundle_change");
    change.effect = "refused";
    change.detail = err.message;
    change.refusal = {
      status: err.status,
      code: err.code,
      fields: err.fields.map((f) => ({ path: `${change.path}${f.path ? `.${f.path}` : ""}`, message: f.message })),
    };
  }
}

async function writeBundle(
  tx: Prisma.TransactionClient,
  actor: TActor,
  bundle: TResolvedBundle,
  changes: TBundleChange[],
  factorLists: Map<string, TFactorList>,
) {
  const db = joined(tx);
  const planned = (target: string) => changes.find((c) => c.target === target);
  for (const bp of bundle.providers) {
    const next = providerOnly(bp);
    await step(tx, planned(`provider ${bp.key}`), async () => {
      if (await tx.provider.findUnique({ where: { key: bp.key }, select: { key: true } })) await updateProvider(db, actor, bp.key, next);
      else await createProvider(db, actor, next);
    });
    await step(tx, planned(`adapter ${bp.key}`), () => (bp.adapter ? putAdapter(db, actor, bp.key, bp.adapter) : deleteAdapter(db, actor, bp.key)));
  }
  for (const bo of bundle.operations) {
    const next = operationOnly(bo);
    await step(tx, planned(`operation ${bo.key}`), async () => {
      if (await tx.operation.findUnique({ where: { key: bo.key }, select: { key: true } })) {
        const { key: _key, ...patch } = next;
        await updateOperation(db, actor, bo.key, patch);
      } else await createOperation(db, actor, next);
    });
    const limits = bo.gatewayLimits;
    if (limits) await step(tx, planned(`gateway limits ${bo.key}`), () => putGatewayLimits(db, actor, bo.key, limits));
    const fl = factorLists.get(bo.key);
    if (fl)
      await step(tx, planned(`factor list ${bo.key}`), async () => {
        const draft = await createFactorListDraft(db, actor, {
          document: fl as unknown as Record<string, unknown>,
          changeNote: "Applied from a configuration bundle",
        });
        await submitFactorList(db, actor, draft.id);
      });
  }
}

/** Dry run: "would apply N, would hold M, refused K"; apply: what happened. */
function summarize(changes: TBundleChange[], dryRun: boolean): string {
  if (changes.length === 0) return "no changes";
  const count = (effect: TBundleChange["effect"]) => changes.filter((c) => c.effect === effect).length;
  const parts = dryRun
    ? [
        `would apply ${count("applied")}`,
        `would hold ${count("pending")} for compliance`,
        `would put ${count("in_review")} factor lists in review`,
        `refused ${count("refused")}`,
      ]
    : [`${count("applied")} applied`, `${count("pending")} waiting for compliance`, `${count("in_review")} factor lists in review`];
  return `${changes.length} change${changes.length === 1 ? "" : "s"}: ${parts.join(", ")}`;
}
