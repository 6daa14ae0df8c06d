import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { parseFactorList } from "../../../router-core/policy/codec";
import { editYaml, numberOrText, readYaml } from "./factor-list-yaml-edit";

const listing = readFileSync(new URL("../../../router-core/policy/listing1.yaml", import.meta.url), "utf8");
const commented = `# owned by the SMS team\n${listing}`;

describe("the form view's edits to the draft YAML", () => {
  it("changes one weight in place, keeping comments, flow maps and the other numbers as written", () => {
    const out = editYaml(commented, ["scores", "p95_latency_5m", "weight"], 0.25);
    expect(out).toContain("# owned by the SMS team");
    expect(out).toContain("p95_latency_5m: {weight: 0.25, direction: lower}");
    expect(out).toContain("recent_incident_penalty: {weight: 0.10, direction: lower}");
    expect(out).toContain("max_traffic_shift_per_minute: 0.50");
    // 0.45 + 0.25 + 0.15 + 0.10 + 0.10: the schema reports the sum at "scores".
    const parsed = parseFactorList(out);
    expect(parsed.ok).toBe(false);
    if (!parsed.ok) expect(parsed.errors).toEqual([expect.objectContaining({ path: "scores", message: "score weights must sum to 1 (±1e-9), got 1.05" })]);
  });

  it("creates a missing section, removes an optional field, and keeps a block list a block list", () => {
    const withGuard = editYaml(listing, ["guardrails", "max_p95_ms"], 900);
    expect(readYaml(withGuard)?.guardrails).toEqual({ max_p95_ms: 900 });
    expect(readYaml(editYaml(withGuard, ["guardrails", "max_p95_ms"], undefined))?.guardrails).toEqual({});
    const gates = editYaml(listing, ["gates"], ["supports_region", "quota_available"]);
    expect(gates).toContain("gates:\n  - supports_region\n  - quota_available\n");
  });

  it("leaves text that is not a YAML mapping alone", () => {
    expect(readYaml("- a\n- b\n")).toBeNull();
    expect(editYaml("key: [unclosed", ["key"], 1)).toBe("key: [unclosed");
  });

  it("turns typed text into a number only when it is one, so the schema can name the rest", () => {
    expect(numberOrText("0.05")).toBe(0.05);
    expect(numberOrText(" 1e-2 ")).toBe(0.01);
    expect(numberOrText("0.")).toBe(0);
    expect(numberOrText("abc")).toBe("abc");
    expect(numberOrText("")).toBe("");
  });
});
