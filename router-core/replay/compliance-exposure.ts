import { complianceAllowed } from "../gates/compliance-allowed";
import { staticGateInput } from "../gates/gate";
import type { TFactorList } from "../policy/schema";
import type { TProviderInfo } from "../types";

export type TComplianceBreach = {
  region: string;
  provider: string;
  /** Replayed decisions of the region the candidate sent to this provider. */
  decisions: number;
  /** All replayed decisions of the region (the recorded ones). */
  regionDecisions: number;
  /** The compliance gate's reason under the active policy. */
  reason: string;
};

/**
 * Which of a candidate's replayed decisions would have gone to a provider the ACTIVE policy's
 * compliance rules refuse for that region: the region's allow-list and required tags (with the
 * catalogue's requirements already merged in), checked by the compliance gate itself so the
 * what-if and the data plane cannot disagree on what "fails compliance" means. Per-request tags
 * are not recorded per decision, so only the region rules are checked.
 */
export function complianceBreaches(
  active: TFactorList,
  catalog: readonly Pick<TProviderInfo, "key" | "complianceTags">[],
  regions: readonly string[],
  providers: readonly string[],
  servedByRegion: readonly (readonly number[])[],
): TComplianceBreach[] {
  const tags = new Map(catalog.map((p) => [p.key, p.complianceTags]));
  const out: TComplianceBreach[] = [];
  regions.forEach((region, r) => {
    const row = servedByRegion[r] ?? [];
    const regionDecisions = row.reduce((a, b) => a + b, 0);
    const rule = active.regions[region];
    providers.forEach((provider, p) => {
      const decisions = row[p] ?? 0;
      if (decisions === 0) return;
      const outcome = complianceAllowed(
        staticGateInput(catalogEntry(provider, tags.get(provider) ?? []), region, rule?.required_compliance ?? [], rule?.providers ?? null),
      );
      if (!outcome.passed) out.push({ region, provider, decisions, regionDecisions, reason: outcome.detail });
    });
  });
  return out;
}

/** Only the compliance tags matter to the compliance gate; the provider is otherwise unrestricted. */
function catalogEntry(key: string, complianceTags: readonly string[]): TProviderInfo {
  return { key, regions: ["*"], complianceTags, costPerRequest: 0, credentialStatus: "valid", enabled: true };
}
