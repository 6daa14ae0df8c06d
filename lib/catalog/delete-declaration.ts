import { type Prisma, type PrismaClient, notifyConfigChange } from "../db";
import { type TActor, appendAudit } from "../audit";
import { ContractError, notFound } from "../errors";

type TTx = Prisma.TransactionClient;
type TKind = "region" | "certification";

/** Versions that can still route traffic or be put live: a rejected or superseded one names nothing that matters. */
const LIVE_VERSIONS = ["draft", "in_review", "approved", "active", "shadow"] as const;
/** References listed in a refusal; the count says how many more there are. */
const MAX_LISTED = 20;

type TRegionRules = Record<string, { required_compliance?: string[] } | undefined>;

/**
 * What still names a region or a certification: providers, operations' requirements, regions'
 * rules, factor-list versions that can still go live, and active overrides (regions). Decisions and
 * metrics already logged keep the name as history and do not count.
 */
async function referencesTo(tx: TTx, kind: TKind, name: string): Promise<string[]> {
  const refs: string[] = [];
  const providers = await tx.provider.findMany({
    where: kind === "region" ? { supportedRegions: { has: name } } : { complianceTags: { has: name } },
    select: { key: true },
    orderBy: { key: "asc" },
  });
  refs.push(...providers.map((p) => `provider ${p.key}`));
  if (kind === "certification") {
    const regions = await tx.region.findMany({ where: { requires: { has: name } }, select: { name: true }, orderBy: { name: "asc" } });
    refs.push(...regions.map((r) => `region ${r.name}`));
  }
  const operations = await tx.operation.findMany({ select: { key: true, regionRequirements: true }, orderBy: { key: "asc" } });
  for (const o of operations) {
    const rules = (o.regionRequirements ?? {}) as Record<string, string[]>;
    if (kind === "region" ? name in rules : Object.values(rules).some((certs) => certs.includes(name))) refs.push(`operation ${o.key}`);
  }
  const versions = await tx.factorListVersion.findMany({
    where: { status: { in: [...LIVE_VERSIONS] } },
    select: { operationKey: true, version: true, status: true, document: true },
    orderBy: [{ operationKey: "asc" }, { version: "asc" }],
  });
  for (const v of versions) {
    const rules = ((v.document as { regions?: TRegionRules } | null)?.regions ?? {}) as TRegionRules;
    const named = kind === "region" ? name in rules : Object.values(rules).some((r) => r?.required_compliance?.includes(name));
    if (named) refs.push(`factor list ${v.operationKey} v${v.version} (${v.status})`);
  }
  if (kind === "region") {
    const overrides = await tx.override.findMany({
      where: { region: name, endedAt: null },
      select: { kind: true, operationKey: true },
      orderBy: { createdAt: "asc" },
    });
    refs.push(...overrides.map((o) => `active ${o.kind} on ${o.operationKey ?? "every operation"}`));
  }
  return refs;
}

function refuseInUse(kind: TKind, name: string, refs: string[]): never {
  const shown = refs.slice(0, MAX_LISTED).join("; ");
  const more = refs.length > MAX_LISTED ? `; … (${refs.length - MAX_LISTED} more)` : "";
  throw new ContractError("declaration_in_use", `${kind} ${name} is still named by ${shown}${more}; change those first`);
}

/**
 * Removes a declared region nothing names any more (a misspelling declared by mistake, a region
 * left): refused with 409 `declaration_in_use` listing what still names it. With no provider
 * serving it, no operation and no factor list naming it, removing its rule cannot send traffic
 * anywhere it could not go, so it needs no compliance review.
 */
export async function deleteRegion(prisma: PrismaClient, actor: TActor, name: string) {
  return prisma.$transaction(async (tx) => {
    await tx.$queryRaw`select name from region where name = ${name} for update`;
    const before = await tx.region.findUnique({ where: { name } });
    if (!before) throw notFound("region", name);
    const refs = await referencesTo(tx, "region", name);
    if (refs.length > 0) refuseInUse("region", name, refs);
    await tx.catalogChange.updateMany({ where: { targetType: "region", targetKey: name, status: "pending" }, data: { status: "superseded" } });
    await tx.region.delete({ where: { name } });
    await appendAudit(tx, actor, {
      action: "catalog.region.delete",
      targetType: "region",
      targetId: name,
      before: { name, requires: before.requires, version: before.version },
    });
    await notifyConfigChange(tx, { kind: "catalog" });
    return { status: "deleted" as const, name };
  });
}

/** Removes a declared certification nothing names any more; refused with what still names it. */
export async function deleteCertification(prisma: PrismaClient, actor: TActor, name: string) {
  return prisma.$transaction(async (tx) => {
    await tx.$queryRaw`select name from certification where name = ${name} for update`;
    const before = await tx.certification.findUnique({ where: { name } });
    if (!before) throw notFound("certification", name);
    const refs = await referencesTo(tx, "certification", name);
    if (refs.length > 0) refuseInUse("certification", name, refs);
    await tx.certification.delete({ where: { name } });
    await appendAudit(tx, actor, {
      action: "catalog.certification.delete",
      targetType: "certification",
      targetId: name,
      before: { name, description: before.description },
    });
    await notifyConfigChange(tx, { kind: "catalog" });
    return { status: "deleted" as const, name };
  });
}
