import type { PrismaClient } from "../db";
import { adapterOf, limitsOf, operationOf, providerOf } from "./catalog-rows";
import { changeSummary } from "./compliance-hold";
import { credentialState } from "./credential-state";
import { describePolicies, policiesNamingProvider, policiesOfOperation } from "./policies-naming";

/**
 * The whole catalogue as the console and GET /api/control/catalog show it: providers with their
 * credential reference's state on this instance (never the value), adapters, operations with
 * their gateway limits and live policies, the changes waiting for compliance, and the declared
 * regions and certifications.
 */
export async function getCatalog(prisma: PrismaClient) {
  const tx = prisma;
  {
    const [providers, adapters, operations, limits, pending, regions, certifications] = await Promise.all([
      tx.provider.findMany({ orderBy: { key: "asc" } }),
      tx.providerAdapter.findMany(),
      tx.operation.findMany({ orderBy: { key: "asc" } }),
      tx.gatewayOperation.findMany(),
      tx.catalogChange.findMany({ where: { status: "pending" }, orderBy: { requestedAt: "asc" } }),
      tx.region.findMany({ orderBy: { name: "asc" } }),
      tx.certification.findMany({ orderBy: { name: "asc" } }),
    ]);
    const adapterBy = new Map(adapters.map((a) => [a.providerKey, a]));
    const limitsBy = new Map(limits.map((l) => [l.operationKey, l]));
    return {
      providers: await Promise.all(
        providers.map(async (p) => {
          const adapter = adapterBy.get(p.key);
          return {
            ...providerOf(p),
            version: p.version,
            credentialState: credentialState(p.credentialRef),
            adapter: adapter ? adapterOf(adapter) : null,
            usedBy: describePolicies(await policiesNamingProvider(tx, p.key)),
          };
        }),
      ),
      operations: await Promise.all(
        operations.map(async (o) => {
          const l = limitsBy.get(o.key);
          return {
            ...operationOf(o),
            version: o.version,
            gatewayLimits: l ? limitsOf(l) : null,
            livePolicies: describePolicies(await policiesOfOperation(tx, o.key)),
          };
        }),
      ),
      pendingChanges: pending.map(changeSummary),
      /** Declared regions with their compliance rule, and declared certifications, by name. */
      regions: regions.map((r) => ({ name: r.name, requires: [...r.requires].sort(), version: r.version })),
      certifications: certifications.map((c) => ({ name: c.name, description: c.description })),
    };
  }
}
export type TCatalogView = Awaited<ReturnType<typeof getCatalog>>;
