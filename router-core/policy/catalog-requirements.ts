import type { TFactorList } from "./schema";

export type TRegionRequirements = Readonly<Record<string, readonly string[]>>;

/**
 * The factor list the data plane routes with: its own region rules plus the catalogue's
 * per-region certification requirements of the operation (union per region). Returns the same
 * object when there is nothing to add, so router-core's compile cache keeps hitting.
 */
export function withCatalogRequirements(policy: TFactorList, requirements: TRegionRequirements): TFactorList {
  const entries = Object.entries(requirements).filter(([, certs]) => Array.isArray(certs) && certs.length > 0);
  if (entries.length === 0) return policy;
  const regions: TFactorList["regions"] = { ...policy.regions };
  for (const [region, certs] of entries) {
    const rule = regions[region];
    const required = [...new Set([...(rule?.required_compliance ?? []), ...certs])];
    regions[region] = { ...(rule ?? {}), required_compliance: required };
  }
  return { ...policy, regions };
}
