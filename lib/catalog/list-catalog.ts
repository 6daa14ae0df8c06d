import "server-only";
import { getPrisma } from "../db";

export type TCatalogProvider = {
  key: string;
  displayName: string;
  supportedRegions: string[];
  complianceTags: string[];
  costPerRequest: string;
  credentialStatus: string;
  enabled: boolean;
};

export type TCatalogOperation = { key: string; description: string; criticality: string };

export async function listCatalog(): Promise<{ providers: TCatalogProvider[]; operations: TCatalogOperation[] }> {
  const prisma = getPrisma();
  const [providers, operations] = await Promise.all([
    prisma.provider.findMany({ orderBy: { key: "asc" } }),
    prisma.operation.findMany({ orderBy: { key: "asc" } }),
  ]);
  return {
    providers: providers.map((p) => ({
      key: p.key,
      displayName: p.displayName,
      supportedRegions: p.supportedRegions,
      complianceTags: p.complianceTags,
      costPerRequest: p.costPerRequest.toString(),
      credentialStatus: p.credentialStatus,
      enabled: p.enabled,
    })),
    operations: operations.map((o) => ({ key: o.key, description: o.description, criticality: o.criticality })),
  };
}
