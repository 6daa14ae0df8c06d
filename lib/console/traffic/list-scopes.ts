import "server-only";
import { getPrisma } from "@/lib/db";
import type { TScope } from "../types";

/**
 * Operations with the regions worth selecting: those the controller keeps shares for, plus every
 * region a provider serves, so a region without traffic yet is still selectable.
 */
export async function listScopes(): Promise<TScope> {
  const prisma = getPrisma();
  const [operations, providers, shareRegions] = await Promise.all([
    prisma.operation.findMany({ select: { key: true }, orderBy: { key: "asc" } }),
    prisma.provider.findMany({ select: { supportedRegions: true } }),
    prisma.trafficShare.findMany({ select: { operationKey: true, region: true }, distinct: ["operationKey", "region"] }),
  ]);
  const served = new Set(providers.flatMap((p) => p.supportedRegions));
  return {
    operations: operations.map((o) => {
      const regions = new Set(served);
      for (const s of shareRegions) if (s.operationKey === o.key) regions.add(s.region);
      return { key: o.key, regions: [...regions].filter((r) => r !== "*").sort() };
    }),
  };
}
