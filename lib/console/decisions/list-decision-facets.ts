import "server-only";
import { REASON_CODES } from "@/router-core/index";
import { getPrisma } from "@/lib/db";

export type TDecisionFacets = { operations: string[]; regions: string[]; providers: string[]; reasons: readonly string[]; policies: string[] };

/** Values for the decision-log filter menus, from the catalogue and policy tables (never from a scan of the log). */
export async function listDecisionFacets(): Promise<TDecisionFacets> {
  const prisma = getPrisma();
  const [ops, providers, versions] = await Promise.all([
    prisma.operation.findMany({ select: { key: true }, orderBy: { key: "asc" } }),
    prisma.provider.findMany({ select: { key: true, supportedRegions: true }, orderBy: { key: "asc" } }),
    prisma.factorListVersion.findMany({
      where: { activatedAt: { not: null } },
      select: { version: true },
      distinct: ["version"],
      orderBy: { version: "desc" },
    }),
  ]);
  return {
    operations: ops.map((o) => o.key),
    regions: [...new Set(providers.flatMap((p) => p.supportedRegions))].filter((r) => r !== "*").sort(),
    providers: providers.map((p) => p.key),
    reasons: REASON_CODES,
    policies: versions.map((v) => `v${v.version}`),
  };
}
