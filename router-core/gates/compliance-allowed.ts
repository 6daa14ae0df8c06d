import { failOutcome, passOutcome, type TGateFn } from "./gate";

const PASS_NONE = passOutcome("compliance_allowed", "no compliance requirement for this region or request");
const PASS = passOutcome("compliance_allowed", "provider is approved and carries every required compliance tag");

export const complianceAllowed: TGateFn = ({ provider, region, requiredCompliance, regionAllowList }) => {
  if (regionAllowList !== null && !regionAllowList.includes(provider.key)) {
    return failOutcome("compliance_allowed", `provider is not on region ${region}'s approved list (${regionAllowList.join(", ")})`);
  }
  if (requiredCompliance.length === 0) return regionAllowList === null ? PASS_NONE : PASS;
  // A plain scan: the passing case, nearly every call, allocates nothing.
  const tags = provider.complianceTags;
  for (let i = 0; i < requiredCompliance.length; i++) {
    if (!tags.includes(requiredCompliance[i]!)) {
      const missing = requiredCompliance.filter((tag) => !tags.includes(tag));
      // Names what was required and what the provider holds, so the console can explain the refusal.
      return failOutcome(
        "compliance_allowed",
        `provider lacks required compliance: ${missing.join(", ")} (${region} requires ${requiredCompliance.join(", ")}; provider holds ${tags.length > 0 ? tags.join(", ") : "none"})`,
      );
    }
  }
  return PASS;
};
