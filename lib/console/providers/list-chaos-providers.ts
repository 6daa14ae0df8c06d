import "server-only";
import { getPrisma } from "@/lib/db";

/** The providers the chaos panel can fault, each with the regions it serves (the wildcard region left out). */
export async function listChaosProviders(): Promise<{ key: string; regions: string[] }[]> {
  const providers = await getPrisma().provider.findMany({ select: { key: true, supportedRegions: true }, orderBy: { key: "asc" } });
  return providers.map((p) => ({ key: p.key, regions: p.supportedRegions.filter((r) => r !== "*") }));
}
