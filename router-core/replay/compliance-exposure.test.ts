import { describe, expect, it } from "vitest";
import { listing1 } from "./suite";
import { complianceBreaches } from "./compliance-exposure";

describe("complianceBreaches", () => {
  const catalog = [
    { key: "A", complianceTags: ["gdpr", "soc2"] },
    { key: "B", complianceTags: ["soc2"] },
  ];

  it("names each region and provider whose replayed decisions the active rules refuse, with the gate's reason", () => {
    const active = { ...listing1(), regions: { EU: { required_compliance: ["gdpr"] }, NA: { providers: ["A"], required_compliance: [] } } };
    const out = complianceBreaches(
      active,
      catalog,
      ["EU", "NA", "APAC"],
      ["A", "B"],
      [
        [70, 30],
        [5, 15],
        [0, 40],
      ],
    );
    expect(out).toEqual([
      { region: "EU", provider: "B", decisions: 30, regionDecisions: 100, reason: expect.stringContaining("lacks required compliance: gdpr") },
      { region: "NA", provider: "B", decisions: 15, regionDecisions: 20, reason: expect.stringContaining("not on region NA's approved list") },
    ]);
  });

  it("treats a provider missing from the catalogue as holding no tags", () => {
    const active = { ...listing1(), regions: { EU: { required_compliance: ["gdpr"] } } };
    expect(complianceBreaches(active, [], ["EU"], ["X"], [[3]])).toMatchObject([{ provider: "X", decisions: 3 }]);
  });
});
