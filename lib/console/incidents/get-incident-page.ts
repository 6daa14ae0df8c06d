import "server-only";
import { getPrisma } from "@/lib/db";
import { getIncident } from "@/lib/incidents/index";
import { can, getViewer } from "../get-viewer";
import { listActiveOverrides } from "../providers/list-active-overrides";
import { listScopes } from "../traffic/list-scopes";
import { listStaticOrders } from "../traffic/list-static-orders";
import { listTrafficShares } from "../traffic/list-traffic-shares";

/**
 * Everything the incident page shows on one screen: the incident, the overrides in its scope, and
 * what the override dialogs need (providers, shares, static orders) with the incident's operation
 * and region in view (`limits`: the pin expiry bound, from the environment). Null when the incident does not exist.
 */
export async function getIncidentPage(id: string, limits: { pinMaxExpiryMs: number }) {
  const prisma = getPrisma();
  const detail = await getIncident(prisma, id);
  if (!detail) return null;
  const { operation, region } = detail.incident;
  const [viewer, overrides, scope, shares, staticOrder, providers] = await Promise.all([
    getViewer(),
    listActiveOverrides({ operation }),
    listScopes(),
    listTrafficShares(),
    listStaticOrders(),
    prisma.provider.findMany({ select: { key: true, supportedRegions: true }, orderBy: { key: "asc" } }),
  ]);
  const now = Date.now();
  return {
    detail,
    overrides: overrides.filter((o) => o.region === null || o.region === region),
    canClose: can(viewer, "override.end") && detail.incident.endedAt === null,
    now,
    controls: {
      providers: providers.map((p) => ({ key: p.key, regions: p.supportedRegions })),
      operations: scope.operations,
      shares,
      sharesAt: now,
      canCreate: can(viewer, "override.create"),
      canEnd: can(viewer, "override.end"),
      view: { operation, region },
      pinMaxMinutes: Math.floor(limits.pinMaxExpiryMs / 60_000),
      staticOrder,
    },
  };
}

export type TIncidentPage = NonNullable<Awaited<ReturnType<typeof getIncidentPage>>>;
