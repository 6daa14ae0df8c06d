import type { TFactorList } from "./schema";

/** The gates that enforce where and under which certifications a provider may serve. */
const COMPLIANCE_GATES = ["supports_region", "compliance_allowed"] as const;

/** One way a version loosens compliance compared with the version live now, in words a reviewer reads. */
export type TComplianceWeakening = { path: string; text: string };

/**
 * What `next` allows that `current` refused: a compliance gate dropped, a certification a region
 * required no longer required, a region's provider allow-list widened or removed. Activating such a
 * version needs a confirmation with a reason; tightening needs none.
 */
export function complianceWeakenings(current: TFactorList, next: TFactorList): TComplianceWeakening[] {
  const out: TComplianceWeakening[] = [];
  for (const gate of COMPLIANCE_GATES) {
    if (current.gates.includes(gate) && !next.gates.includes(gate)) {
      out.push({ path: "gates", text: `the ${gate} gate is dropped: providers are no longer checked for it` });
    }
  }
  for (const [region, rule] of Object.entries(current.regions)) {
    const after = next.regions[region];
    const dropped = rule.required_compliance.filter((c) => !(after?.required_compliance ?? []).includes(c));
    if (dropped.length > 0) out.push({ path: `regions.${region}.required_compliance`, text: `${region} no longer requires ${dropped.join(", ")}` });
    if (rule.providers) {
      const widened = after?.providers ? after.providers.filter((p) => !rule.providers!.includes(p)) : null;
      if (widened === null)
        out.push({ path: `regions.${region}.providers`, text: `${region} no longer limits its providers (was ${rule.providers.join(", ")})` });
      else if (widened.length > 0) out.push({ path: `regions.${region}.providers`, text: `${region} now also allows ${widened.join(", ")}` });
    }
  }
  return out;
}
