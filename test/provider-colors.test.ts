import { describe, expect, it } from "vitest";
import { homeColorIndex, PROVIDER_PALETTE, providerColors } from "../components/charts/provider-colors";
import { providerColor } from "../components/format";

/** Issue 38 item 5: one colour per provider on every chart, distinct within a chart. */
describe("provider colours", () => {
  it("give a provider the same colour whatever else its chart shows, in any order", () => {
    const sms = providerColors(["provider_A", "provider_B", "provider_C"]);
    const other = providerColors(["provider_E", "provider_A", "llm_openai", "provider_D"]);
    expect(other.get("provider_A")).toBe(sms.get("provider_A"));
    expect(providerColors(["provider_C", "provider_A", "provider_B"])).toEqual(sms);
    // The charts' helper: the old one coloured by position in the chart's sorted list.
    expect(providerColor("provider_D", ["provider_D", "provider_E"])).toBe(providerColor("provider_D", ["provider_A", "provider_B", "provider_D"]));
    expect(providerColor("provider_A", ["provider_A", "provider_B", "provider_C"])).not.toBe(providerColor("provider_D", ["provider_D", "provider_E"]));
  });

  it("tell apart two providers of one chart whose keys share a colour, and keep the first one's", () => {
    const keys = Array.from({ length: 200 }, (_, i) => `p${i}`);
    const a = keys[0]!;
    const b = keys.find((k) => k !== a && homeColorIndex(k) === homeColorIndex(a))!;
    expect(b).toBeDefined();
    const both = providerColors([b, a]);
    expect(both.get(a)).toBe(PROVIDER_PALETTE[homeColorIndex(a)]);
    expect(both.get(b)).not.toBe(both.get(a));
    expect(providerColors([b]).get(b)).toBe(PROVIDER_PALETTE[homeColorIndex(b)]);
  });

  it("use ten distinct palette colours for ten providers of one chart", () => {
    const ten = Array.from({ length: 10 }, (_, i) => `provider_${String.fromCharCode(65 + i)}`);
    const colors = providerColors(ten);
    expect(new Set(colors.values()).size).toBe(10);
    for (const c of colors.values()) expect(PROVIDER_PALETTE).toContain(c);
  });
});
