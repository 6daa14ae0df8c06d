import { factorListInFieldOrder, type TFactorList } from "../../router-core/index";
import type { PrismaClient } from "../db";
import { adapterOf, limitsOf, operationOf, providerOf } from "./catalog-rows";
import { BUNDLE_API_VERSION, type TBundle } from "./bundle";
import { exportNotifications } from "./bundle-notifications";
import { exportDeclarations } from "./bundle-declarations";

/**
 * The running configuration as a bundle: every provider with its adapter, every operation with
 * its gateway limits and its active factor list (the canonical document, defaults filled in).
 * Drafts and held changes are not exported: a bundle describes what runs.
 */
export async function exportBundle(prisma: PrismaClient): Promise<TBundle> {
  const [providers, adapters, operations, limits, pointers] = await Promise.all([
    prisma.provider.findMany({ orderBy: { key: "asc" } }),
    prisma.providerAdapter.findMany(),
    prisma.operation.findMany({ orderBy: { key: "asc" } }),
    prisma.gatewayOperation.findMany(),
    prisma.operationPolicy.findMany({ where: { activeVersionId: { not: null } } }),
  ]);
  const active = await prisma.factorListVersion.findMany({
    where: { id: { in: pointers.map((p) => p.activeVersionId!) } },
    select: { operationKey: true, document: true },
  });
  const adapterBy = new Map(adapters.map((a) => [a.providerKey, a]));
  const limitsBy = new Map(limits.map((l) => [l.operationKey, l]));
  // Fields in reading order (operation, then Listing 1's), not jsonb's key order.
  const policyBy = new Map(
    active.map((v) => [v.operationKey, factorListInFieldOrder(v.document as unknown as TFactorList) as unknown as Record<string, unknown>]),
  );
  const notifications = await exportNotifications(prisma);
  const { regions, certifications } = await exportDeclarations(prisma);
  return {
    apiVersion: BUNDLE_API_VERSION,
    // Declared names first, as apply writes them, by name.
    certifications,
    regions,
    providers: providers.map((p) => {
      const a = adapterBy.get(p.key);
      return { ...providerOf(p), ...(a ? { adapter: adapterOf(a) } : {}) };
    }),
    operations: operations.map((o) => {
      const l = limitsBy.get(o.key);
      const fl = policyBy.get(o.key);
      return { ...operationOf(o), ...(l ? { gatewayLimits: limitsOf(l) } : {}), ...(fl ? { factorList: fl } : {}) };
    }),
    // Only when there are channels: a bundle without the section leaves channels as they are.
    ...(notifications.length > 0 ? { notifications } : {}),
  };
}
