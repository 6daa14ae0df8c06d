import { describe, expect, it } from "vitest";
import { parseFactorList } from "../../router-core/policy/codec";
import { LISTING_1_YAML } from "../../router-core/replay";
import { adaptToScenarios } from "./evaluation";

function list(extra: string) {
  const parsed = parseFactorList(`${LISTING_1_YAML}${extra}`);
  if (!parsed.ok) throw new Error(parsed.errors.map((e) => e.message).join("; "));
  return parsed.value;
}

describe("a stored factor list adapted to the synthetic scenarios", () => {
  it("maps the priority order onto A, B, C and renames regional provider lists", () => {
    const { factorList, providerMap, adaptations } = adaptToScenarios(
      list("providers: [provider_B, provider_A, provider_C]\nregions:\n  EU: {providers: [provider_A, provider_C, provider_X], required_compliance: [gdpr]}\n"),
    );
    expect(providerMap).toEqual([
      { from: "provider_B", to: "A" },
      { from: "provider_A", to: "B" },
      { from: "provider_C", to: "C" },
    ]);
    expect(factorList.providers).toEqual(["A", "B", "C"]);
    expect(factorList.regions.EU).toEqual({ providers: ["B", "C"], required_compliance: [] });
    expect(adaptations).toEqual(["EU: required compliance gdpr not modelled (simulated providers carry no tags)"]);
  });

  it("leaves C out for a two-provider list and says what a fourth provider loses", () => {
    expect(adaptToScenarios(list("providers: [d, e]\n")).factorList.providers).toEqual(["A", "B"]);
    const four = adaptToScenarios(list("providers: [p1, p2, p3, p4]\n"));
    expect(four.factorList.providers).toEqual(["A", "B", "C"]);
    expect(four.adaptations).toEqual(["the scenarios simulate 3 providers: p4 left out"]);
  });

  it("keeps a list that names no provider on the catalogue order", () => {
    const { factorList, providerMap } = adaptToScenarios(list(""));
    expect(providerMap).toEqual([]);
    expect(factorList.providers).toEqual([]);
  });
});
