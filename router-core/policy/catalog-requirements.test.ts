import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { withCatalogRequirements } from "./catalog-requirements";
import { parseFactorList } from "./codec";

const listing1 = () => {
  const r = parseFactorList(readFileSync(new URL("./listing1.yaml", import.meta.url), "utf8"));
  if (!r.ok) throw new Error(JSON.stringify(r.errors));
  return r.value;
};

describe("withCatalogRequirements", () => {
  it("adds the catalogue's certifications to a region's rule, keeping the list's own", () => {
    const policy = listing1();
    const own = policy.regions.EU?.required_compliance ?? [];
    const merged = withCatalogRequirements(policy, { EU: ["gdpr", "iso27001"], NA: [] });
    expect(new Set(merged.regions.EU!.required_compliance)).toEqual(new Set([...own, "gdpr", "iso27001"]));
    expect(merged.regions.NA).toEqual(policy.regions.NA);
    expect(policy.regions.EU?.required_compliance ?? []).toEqual(own);
  });

  it("returns the same object when there is nothing to add, so compile caches keep hitting", () => {
    const policy = listing1();
    expect(withCatalogRequirements(policy, {})).toBe(policy);
    expect(withCatalogRequirements(policy, { EU: [] })).toBe(policy);
  });
});
