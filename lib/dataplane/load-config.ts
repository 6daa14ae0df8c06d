import {
  parseFactorList,
  withCatalogRequirements,
  type TCredentialStatus,
  type TProviderInfo,
  type TRegionRequirements,
  type TShadowPolicy,
} from "../../router-core/index";
import type { PrismaClient } from "../db";
import { ZQuota } from "./quota/quota-schema";
import type { TProviderQuota } from "./quota/cluster-quota";
import type { RoutingState, TActivePolicy, TOverrideRow } from "./routing-state";

export type TConfigLoadResult = {
  operations: number;
  providers: number;
  /** Each provider's catalogued quotas (requests and tokens), for the cluster quota (lib/dataplane/quota). */
  quotas: Map<string, TProviderQuota[]>;
  overrides: number;
  /** Stored documents that no longer parse (e.g. written by an older schema); the previous policy keeps routing. */
  errors: Array<{ operation: string; versionId: string; message: string }>;
};

/** The catalogue's credential states mapped onto router-core's gate vocabulary. */
const CREDENTIALS: Record<string, TCredentialStatus> = {
  valid: "valid",
  // Still usable until it expires; the console warns about it, routing must not.
  expiring: "valid",
  invalid: "invalid",
  // Nothing configured: a call cannot authenticate, so it fails the gate like an invalid one.
  missing: "invalid",
};

/** Per routing state: the catalogue requirements each kept policy object was built with. */
const lastRequirements = new WeakMap<RoutingState, Map<string, string>>();

/**
 * Loads policies (active and shadow), the provider catalogue and the overrides active now into
 * the routing state. Whole-table reads: the config is small, and one consistent reload is
 * simpler than per-row diffs driven by NOTIFY payloads. Throws when the database is
 * unreachable, leaving the state as it was (decide keeps routing on it).
 */
export async function loadConfig(prisma: PrismaClient, state: RoutingState, now: number = Date.now()): Promise<TConfigLoadResult> {
  const [pointers, providerRows, operationRows, overrideRows, regionRows] = await Promise.all([
    prisma.operationPolicy.findMany({
      select: {
        operationKey: true,
        activeVersionId: true,
        shadowVersionId: true,
      },
    }),
    prisma.provider.findMany({ orderBy: { key: "asc" } }),
    prisma.operation.findMany({ select: { key: true, regionRequirements: true } }),
    prisma.override.findMany({
      where: { endedAt: null, OR: [{ expiresAt: null }, { expiresAt: { gt: new Date(now) } }] },
      orderBy: { createdAt: "asc" },
    }),
    prisma.region.findMany({ where: { requires: { isEmpty: false } }, select: { name: true, requires: true } }),
  ]);
  const versionIds = pointers.flatMap((p) => [p.activeVersionId, p.shadowVersionId]).filter((id): id is string => id !== null);
  const versions = versionIds.length
    ? await prisma.factorListVersion.findMany({ where: { id: { in: versionIds } }, select: { id: true, version: true, document: true } })
    : [];
  const byId = new Map(versions.map((v) => [v.id, v]));

  const errors: TConfigLoadResult["errors"] = [];
  // The catalogue's per-region certification requirements join each policy's region rules, so
  // the compliance gate enforces them whatever the factor list says: a declared region's own rule
  // for every operation, plus the operation's. Rules only add up; none can lift another.
  const regionRules = Object.fromEntries(regionRows.map((r) => [r.name, r.requires]));
  const requirements = new Map(operationRows.map((o) => [o.key, unionRequirements(regionRules, (o.regionRequirements ?? {}) as TRegionRequirements)]));
  const parse = (operation: string, id: string | null) => {
    if (!id) return null;
    const row = byId.get(id);
    if (!row) return null;
    const parsed = parseFactorList(row.document);
    if (!parsed.ok) {
      errors.push({ operation, versionId: id, message: parsed.errors.map((e) => `${e.path || "(root)"}: ${e.message}`).join("; ") });
      return null;
    }
    const required = requirements.get(operation) ?? {};
    return { policy: withCatalogRequirements(parsed.value, required), version: `v${row.version}`, requirementsKey: JSON.stringify(required) };
  };

  const policies = new Map<string, TActivePolicy>();
  for (const p of pointers) {
    const active = parse(p.operationKey, p.activeVersionId);
    if (!active) {
      const previous = state.policyFor(p.operationKey);
      if (p.activeVersionId && previous) policies.set(p.operationKey, previous);
      continue;
    }
    const shadowParsed = parse(p.operationKey, p.shadowVersionId);
    const shadow: TShadowPolicy | null = shadowParsed ? { policy: shadowParsed.policy, policyVersion: shadowParsed.version } : null;
    const previous = state.policyFor(p.operationKey);
    // Keep the previous objects when nothing changed: router-core caches compiled policies by identity.
    const sameRequirements = lastRequirements.get(state)?.get(p.operationKey) === active.requirementsKey;
    if (previous && sameRequirements && previous.version === active.version && (previous.shadow?.policyVersion ?? null) === (shadow?.policyVersion ?? null)) {
      policies.set(p.operationKey, previous);
    } else {
      policies.set(p.operationKey, { policy: active.policy, version: active.version, shadow });
    }
  }

  lastRequirements.set(state, new Map([...policies.keys()].map((k) => [k, JSON.stringify(requirements.get(k) ?? {})])));

  const catalogue: TProviderInfo[] = providerRows.map((p) => ({
    key: p.key,
    regions: p.supportedRegions,
    complianceTags: p.complianceTags,
    costPerRequest: Number(p.costPerRequest),
    credentialStatus: CREDENTIALS[p.credentialStatus] ?? "unknown",
    enabled: p.enabled,
  }));
  if (!sameCatalogue(state.providers(), catalogue)) state.setProviders(catalogue);
  state.replacePolicies(policies);

  const overrides: TOverrideRow[] = overrideRows.map((o) => ({
    kind: o.kind,
    operation: o.operationKey,
    region: o.region,
    provider: o.providerKey,
    reason: o.reason,
    expiresAt: o.expiresAt ? o.expiresAt.getTime() : null,
  }));
  state.setOverrides(overrides);
  state.setDbAvailable(true);
  state.markRefreshed(now);
  return { operations: policies.size, providers: catalogue.length, quotas: callQuotas(providerRows), overrides: overrides.length, errors };
}

function callQuotas(rows: ReadonlyArray<{ key: string; enabled: boolean; quotas: unknown }>): Map<string, TProviderQuota[]> {
  const out = new Map<string, TProviderQuota[]>();
  for (const row of rows) {
    const parsed = ZQuota.array().safeParse(row.quotas);
    const qs = parsed.success ? parsed.data.map((q) => ({ unit: q.unit, windowSeconds: q.windowSeconds, limit: q.limit })) : [];
    if (qs.length > 0) out.set(row.key, qs);
  }
  return out;
}

function sameCatalogue(a: readonly TProviderInfo[], b: readonly TProviderInfo[]): boolean {
  return a.length === b.length && JSON.stringify(a) === JSON.stringify(b);
}

/** Per region, the certifications either set of rules requires (sorted, so the compile cache key is stable). */
function unionRequirements(a: TRegionRequirements, b: TRegionRequirements): TRegionRequirements {
  const out: Record<string, string[]> = {};
  for (const region of new Set([...Object.keys(a), ...Object.keys(b)])) out[region] = [...new Set([...(a[region] ?? []), ...(b[region] ?? [])])].sort();
  return out;
}
