import "server-only";
import { getPrisma } from "@/lib/db";
import type { TOverrideBand } from "../types";

/**
 * Overrides that were in effect at some point of [from, to] for the operation and region, as
 * bands for the share chart: a pin or kill explains a served share the plan does not. An override
 * with no operation or region applies to all of them. Bands are clipped to the range.
 */
export async function listOverrideBands(operation: string, region: string, from: number, to: number): Promise<TOverrideBand[]> {
  const rows = await getPrisma().override.findMany({
    where: {
      createdAt: { lte: new Date(to) },
      AND: [
        { OR: [{ endedAt: null }, { endedAt: { gt: new Date(from) } }] },
        { OR: [{ expiresAt: null }, { expiresAt: { gt: new Date(from) } }] },
        { OR: [{ operationKey: null }, { operationKey: operation }] },
        { OR: [{ region: null }, { region }] },
      ],
    },
    orderBy: { createdAt: "asc" },
    take: 200,
  });
  return rows.map((o) => {
    const ends = [o.endedAt?.getTime(), o.expiresAt?.getTime(), to].filter((t): t is number => t !== undefined);
    return {
      id: o.id,
      kind: o.kind,
      provider: o.providerKey,
      reason: o.reason,
      start: Math.max(from, o.createdAt.getTime()),
      end: Math.min(...ends),
      ongoing: Math.min(...ends) >= to,
    };
  });
}
