import { describe, expect, it } from "vitest";
import { parseFactorList } from "./codec";
import { complianceWeakenings } from "./compliance-weakening";
import type { TFactorList } from "./schema";

const base = `operation: SEND_SMS
providers: [a, b, c]
gates: [supports_region, compliance_allowed, quota_available]
regions:
  EU: {providers: [a, b], required_compliance: [gdpr, soc2]}
`;

function doc(yaml: string): TFactorList {
  const parsed = parseFactorList(yaml);
  if (!parsed.ok) throw new Error(parsed.errors.map((e) => e.message).join("; "));
  return parsed.value;
}

describe("complianceWeakenings", () => {
  it("names a dropped compliance gate, a certification no longer required and a widened or removed allow-list", () => {
    const next = doc(base.replace("compliance_allowed, ", "").replace("gdpr, soc2", "soc2").replace("[a, b]", "[a, b, c]"));
    expect(complianceWeakenings(doc(base), next).map((w) => w.text)).toEqual([
      "the compliance_allowed gate is dropped: providers are no longer checked for it",
      "EU no longer requires gdpr",
      "EU now also allows c",
    ]);
    const open = doc(base.replace(/regions:\n.*\n/, ""));
    expect(complianceWeakenings(doc(base), open).map((w) => w.path)).toEqual(["regions.EU.required_compliance", "regions.EU.providers"]);
  });

  it("finds nothing when compliance only tightens or other settings change", () => {
    const tighter = doc(base.replace("[a, b]", "[a]").replace("gdpr, soc2", "gdpr, soc2, pci_dss").replace(", quota_available", ""));
    expect(complianceWeakenings(doc(base), tighter)).toEqual([]);
  });
});
