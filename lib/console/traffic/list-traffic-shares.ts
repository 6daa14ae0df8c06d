import "server-only";
import { getPrisma } from "@/lib/db";

export type TTrafficShareRow = { operation: string; region: string; provider: string; share: number; updatedAt: number };

/** The controller's current shares for every (operation, region, provider): the blast radius of a kill or pin. */
export async function listTrafficShares(): Promise<TTrafficShareRow[]> {
  const rows = await getPrisma().trafficShare.findMany({ orderBy: [{ operationKey: "asc" }, { region: "asc" }, { providerKey: "asc" }] });
  return rows.map((r) => ({ operation: r.operationKey, region: r.region, provider: r.providerKey, share: r.share, updatedAt: r.updatedAt.getTime() }));
}
