import { describe, expect, it } from "vitest";
import { complianceAllowed } from "./compliance-allowed";
import { gateInput } from "./gate-input.fixture";

describe("compliance_allowed", () => {
  it("passes without any requirement", () => {
    expect(complianceAllowed(gateInput())).toEqual({
      gate: "compliance_allowed",
      passed: true,
      detail: "no compliance requirement for this region or request",
    });
  });

  it("passes a provider carrying every required tag and on the allow-list", () => {
    const o = complianceAllowed(gateInput({ requiredCompliance: ["gdpr"], regionAllowList: ["a", "b"] }, { complianceTags: ["gdpr", "hipaa"] }));
    expect(o).toEqual({ gate: "compliance_allowed", passed: true, detail: "provider is approved and carries every required compliance tag" });
  });

  it("fails naming every missing tag", () => {
    const o = complianceAllowed(gateInput({ requiredCompliance: ["gdpr", "hipaa", "in_dlt"] }, { complianceTags: ["gdpr"] }));
    expect(o).toEqual({
      gate: "compliance_allowed",
      passed: false,
      detail: "provider lacks required compliance: hipaa, in_dlt (EU requires gdpr, hipaa, in_dlt; provider holds gdpr)",
    });
  });

  it("fails a provider off the region's approved list, naming the list", () => {
    expect(complianceAllowed(gateInput({ regionAllowList: ["b", "c"] }))).toEqual({
      gate: "compliance_allowed",
      passed: false,
      detail: "provider is not on region EU's approved list (b, c)",
    });
  });
});
