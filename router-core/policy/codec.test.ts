import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { factorListToJson, factorListToYaml, parseFactorList } from "./codec";
import { diffFactorLists } from "./diff";
import type { TFactorList } from "./schema";

const fixture = (name: string) => readFileSync(new URL(`./${name}`, import.meta.url), "utf8");

function parsed(input: unknown): TFactorList {
  const r = parseFactorList(input);
  if (!r.ok) throw new Error(JSON.stringify(r.errors));
  return r.value;
}

function errorsOf(input: unknown) {
  const r = parseFactorList(input);
  if (r.ok) throw new Error("expected errors");
  return r.errors;
}

describe("parseFactorList", () => {
  it("parses the paper's Listing 1 unchanged and fills defaults", () => {
    const fl = parsed(fixture("listing1.yaml"));
    expect(fl.operation).toBe("SEND_SMS");
    expect(fl.min_sample_size).toBe(200);
    expect(fl.gates).toEqual(["supports_region", "compliance_allowed", "quota_available", "circuit_breaker_closed", "metric_fresh_or_safe_default"]);
    expect(fl.scores.completion_rate_5m).toEqual({ weight: 0.45, direction: "higher" });
    expect(fl.safety).toEqual({
      max_traffic_shift_per_minute: 0.5,
      primary_probe_share: 0.01,
      primary_recovery_cooldown_seconds: 300,
      require_reason_code: true,
    });
    expect(fl.providers).toEqual([]);
    expect(fl.hysteresis_score_margin).toBe(3.5);
    expect(fl.strategy).toBe("weighted_score");
    expect(fl.max_metric_age_seconds).toBe(60);
    expect(fl.circuit_breaker.consecutive_failures).toBe(5);
    expect(fl.circuit_breaker.failure_rate_threshold).toBe(0.3);
  });

  it("parses the listing as text extraction of the paper flattens it, with a warning", () => {
    const r = parseFactorList(fixture("listing1.flat.yaml"));
    expect(r.ok).toBe(true);
    if (!r.ok) return;
    expect(r.value).toEqual(parsed(fixture("listing1.yaml")));
    expect(r.warnings.map((w) => w.path)).toEqual(["scores", "safety"]);
  });

  it("round-trips through the YAML and JSON codecs", () => {
    const fl = parsed(fixture("listing1.yaml"));
    expect(parsed(factorListToYaml(fl))).toEqual(fl);
    expect(parsed(factorListToJson(fl))).toEqual(fl);
    expect(parsed(JSON.parse(factorListToJson(fl)))).toEqual(fl);
  });

  it("names the field path and the value in every error", () => {
    const errors = errorsOf({
      operation: "X",
      scores: { p95_latency_5m: { weight: 1.5, direction: "lower" } },
      safety: { max_traffic_shift_per_minute: 1.5 },
    });
    expect(errors).toContainEqual({ path: "scores.p95_latency_5m.weight", message: "weight must be in [0, 1], got 1.5" });
    expect(errors).toContainEqual({
      path: "safety.max_traffic_shift_per_minute",
      message: "max_traffic_shift_per_minute must be in (0, 1], got 1.5",
    });
    expect(errors.some((e) => e.path === "scores" && /sum to 1/.test(e.message))).toBe(true);
  });

  it("bounds refresh_interval_seconds, so the default max_metric_age_seconds derived from it stays finite", () => {
    // Found by npm run fuzz: 1.79e308 passed, doubled to Infinity, and the parsed list did not round-trip.
    expect(errorsOf({ operation: "X", refresh_interval_seconds: 1.7976931348623151e308 })).toContainEqual({
      path: "refresh_interval_seconds",
      message: "refresh_interval_seconds must be in (0, 3600], got 1.7976931348623151e+308",
    });
    const fl = parsed({ operation: "X", refresh_interval_seconds: 3600 });
    expect(fl.max_metric_age_seconds).toBe(7200);
    expect(parsed(factorListToJson(fl))).toEqual(fl);
  });

  it("lists the known names for unknown gates, scores, strategies and fallbacks", () => {
    const errors = errorsOf({
      operation: "X",
      gates: ["supports_region", "vibes"],
      scores: { completion_rate_5m: { weight: 0.5, direction: "higher" }, karma: { weight: 0.5, direction: "higher" } },
      strategy: "coin_flip",
      fallback_policy: "panic",
    });
    const byPath = Object.fromEntries(errors.map((e) => [e.path, e.message]));
    expect(byPath["gates[1]"]).toMatch(/unknown gate "vibes".*supports_region.*not_killed/);
    expect(byPath["scores.karma"]).toMatch(/unknown score "karma".*completion_rate_5m/);
    expect(byPath["strategy"]).toMatch(/unknown strategy "coin_flip".*price_latency_penalty/);
    expect(byPath["fallback_policy"]).toMatch(/unknown fallback_policy "panic".*use_secondary_then_queue/);
  });

  it("rejects unknown top-level keys, flipped directions, duplicates and inconsistent breaker options", () => {
    const errors = errorsOf({
      operation: "X",
      colour: "blue",
      providers: ["a", "b", "a"],
      scores: { p95_latency_5m: { weight: 1, direction: "higher" } },
      circuit_breaker: { open_seconds: 60, max_open_seconds: 30, half_open_probes: 2, half_open_successes_to_close: 3 },
    });
    const paths = errors.map((e) => e.path);
    expect(paths).toEqual(
      expect.arrayContaining([
        "colour",
        "providers[2]",
        "scores.p95_latency_5m.direction",
        "circuit_breaker.max_open_seconds",
        "circuit_breaker.half_open_successes_to_close",
      ]),
    );
  });

  it("never throws on garbage", () => {
    for (const input of ["a: [", ":::\n\t- {", "", "null", 42, null, undefined, [], "- a\n- b", "operation: [1,2]", "x: *y"]) {
      const r = parseFactorList(input);
      expect(r.ok).toBe(false);
      if (!r.ok) expect(r.errors.length).toBeGreaterThan(0);
    }
  });

  it("requires operation", () => {
    expect(errorsOf({})).toContainEqual(expect.objectContaining({ path: "operation" }));
  });
});

describe("diffFactorLists", () => {
  const base = parsed(fixture("listing1.yaml"));

  it("reports nothing for identical lists", () => {
    expect(diffFactorLists(base, structuredClone(base))).toEqual({ changes: [], gatesChanged: false, complianceRelevant: false });
  });

  it("reports weight changes by field path, not compliance-relevant", () => {
    const next = structuredClone(base);
    next.scores.completion_rate_5m!.weight = 0.4;
    next.scores.p95_latency_5m!.weight = 0.25;
    const d = diffFactorLists(base, next);
    expect(d.changes.map((c) => c.path)).toEqual(["scores.completion_rate_5m.weight", "scores.p95_latency_5m.weight"]);
    expect(d.changes[0]).toMatchObject({ kind: "changed", before: 0.45, after: 0.4 });
    expect(d.gatesChanged).toBe(false);
    expect(d.complianceRelevant).toBe(false);
  });

  it("flags gate and regional changes for compliance approval", () => {
    const next = structuredClone(base);
    next.gates = [...next.gates, "credentials_valid"];
    expect(diffFactorLists(base, next)).toMatchObject({ gatesChanged: true, complianceRelevant: true });
    const regional = structuredClone(base);
    regional.regions = { EU: { required_compliance: ["gdpr"] } };
    const d = diffFactorLists(base, regional);
    expect(d).toMatchObject({ gatesChanged: false, complianceRelevant: true });
    expect(d.changes).toEqual([expect.objectContaining({ path: "regions.EU", kind: "added" })]);
  });
});

describe("YAML syntax errors", () => {
  it("give the line and column they start at, in the fields and the message", () => {
    const text = "operation: SEND_SMS\ngates: [supports_region, compliance_allowed\nscores:\n  completion_rate_5m: {weight: 1, direction: higher}\n";
    const r = parseFactorList(text);
    expect(r.ok).toBe(false);
    if (r.ok) return;
    const first = r.errors[0]!;
    expect(first).toMatchObject({ path: "", line: 2, column: 8 });
    expect(first.message).toMatch(/^invalid YAML at line 2, column 8: Flow sequence.*still open at line 3\)$/);
  });

  it("point at a bad indentation's own line", () => {
    const r = parseFactorList("operation: SEND_SMS\nscores:\n  a: 1\n b: 2\n");
    expect(r.ok).toBe(false);
    if (!r.ok) expect(r.errors[0]?.line).toBe(4);
  });
});

describe("schema errors in text", () => {
  const listing = fixture("listing1.yaml");
  const lineOf = (text: string, needle: string) => text.split("\n").findIndex((l) => l.includes(needle)) + 1;

  it("carry the line and column of the field they name", () => {
    const text = listing.replace("p95_latency_5m: {weight: 0.20, direction: lower}", "p95_latency_5m: {weight: 0.20, direction: upward}");
    const bad = errorsOf(text).find((e) => e.path === "scores.p95_latency_5m.direction");
    const line = lineOf(text, "p95_latency_5m");
    expect(bad).toMatchObject({ line, column: text.split("\n")[line - 1]!.indexOf("direction") + 1 });
  });

  it("point an unknown field and a bad list item at their own lines", () => {
    const text = listing.replace("min_sample_size: 200", "min_sample_size: 200\nmin_sampel_size: 100").replace("  - quota_available", "  - quota_availible");
    const errors = errorsOf(text);
    expect(errors.find((e) => e.path === "min_sampel_size")).toMatchObject({ line: lineOf(text, "min_sampel_size"), column: 1 });
    expect(errors.find((e) => e.path.startsWith("gates["))).toMatchObject({ line: lineOf(text, "quota_availible"), column: 5 });
  });

  it("leave out a line where the text has no such field", () => {
    const missing = errorsOf(listing.replace("operation: SEND_SMS\n", "")).find((e) => e.path === "operation");
    expect(missing).toBeDefined();
    expect(missing?.line).toBeUndefined();
  });
});

it("names a weight sum without floating-point noise", () => {
  const r = parseFactorList(
    "operation: SEND_SMS\nscores:\n  completion_rate_5m: {weight: 0.45, direction: higher}\n  p95_latency_5m: {weight: 0.2, direction: lower}\n  cost_per_request: {weight: 0.15, direction: lower}\n  recent_incident_penalty: {weight: 0.1, direction: lower}\n  confidence_from_sample: {weight: 0.05, direction: higher}\n",
  );
  expect(r.ok).toBe(false);
  if (!r.ok) expect(r.errors.map((e) => e.message)).toContain("score weights must sum to 1 (±1e-9), got 0.95");
});
