import fc from "fast-check";
import { parse } from "yaml";
import { factorListToYaml, parseFactorList } from "../../router-core/index";
import { canonicalJson } from "../../lib/audit/canonical";

export type TYamlViolation = { invariant: "never_throws" | "errors_name_a_field" | "round_trip"; input: string; detail: string };
export type TYamlFuzzReport = {
  cases: number;
  accepted: number;
  rejected: number;
  errors: number;
  documentLevel: number;
  violations: TYamlViolation[];
  violationCount: number;
  ms: number;
};

/**
 * Errors about the document as a whole have no field to name: YAML that does not parse, text
 * over the size or nesting bounds (router-core/policy/text-bounds.ts), and a document that is
 * not a mapping. Every other error must carry the path of the field at fault.
 */
function isDocumentLevel(message: string): boolean {
  // An unknown key that is itself empty has the empty path, and the message says so.
  return (
    message.startsWith("invalid YAML") ||
    message.startsWith("factor list ") ||
    message.startsWith("a factor list must be a mapping") ||
    message.startsWith('unknown field ""')
  );
}

const SCALARS = fc.oneof(
  fc.constantFrom(
    "null",
    "~",
    "true",
    "no",
    "yes",
    "-1",
    "0",
    "1e309",
    ".nan",
    "-.inf",
    "0x1F",
    "''",
    '""',
    "[]",
    "{}",
    "!!binary aGVsbG8=",
    "!!js/function 'x'",
    "*undefined_alias",
    "&a [*a]",
    "|\n  block",
    "2026-11-30",
  ),
  fc.double().map(String),
  fc.integer().map(String),
  fc.string({ maxLength: 30 }).map((s) => JSON.stringify(s)),
);

const FIELD_NAMES = [
  "operation",
  "providers",
  "gates",
  "scores",
  "guardrails",
  "safety",
  "circuit_breaker",
  "fallback_policy",
  "strategy",
  "hysteresis_score_margin",
  "refresh_interval_seconds",
  "metric_window_minutes",
  "min_sample_size",
  "weight",
  "direction",
  "max_p95_ms",
  "unknown_field",
  "__proto__",
  "constructor",
];

/** Mutations of a valid factor list's text: one line changed, removed, duplicated, re-indented or replaced, plus hostile YAML. */
export function yamlCaseArbitrary(valid: string): fc.Arbitrary<unknown> {
  const lines = valid.split("\n");
  const lineIdx = fc.nat(lines.length - 1);
  const text = fc.oneof(
    fc.tuple(lineIdx, SCALARS).map(([i, v]) => lines.map((l, j) => (j === i ? l.replace(/:\s.*$/, `: ${v}`) : l)).join("\n")),
    fc.tuple(lineIdx).map(([i]) => lines.filter((_, j) => j !== i).join("\n")),
    fc.tuple(lineIdx).map(([i]) => [...lines.slice(0, i + 1), lines[i]!, ...lines.slice(i + 1)].join("\n")),
    fc
      .tuple(lineIdx, fc.integer({ min: -4, max: 6 }))
      .map(([i, d]) => lines.map((l, j) => (j === i ? (d >= 0 ? " ".repeat(d) + l : l.slice(-d)) : l)).join("\n")),
    fc
      .tuple(lineIdx, fc.constantFrom(...FIELD_NAMES), SCALARS)
      .map(([i, k, v]) => [...lines.slice(0, i), `${lines[i]!.match(/^\s*/)![0]}${k}: ${v}`, ...lines.slice(i)].join("\n")),
    fc.tuple(lineIdx, fc.string({ unit: "binary", maxLength: 20 })).map(([i, junk]) => lines.map((l, j) => (j === i ? l + junk : l)).join("\n")),
    fc.nat(valid.length).map((n) => valid.slice(0, n)),
    fc.string({ unit: "binary", maxLength: 200 }),
    fc.constantFrom(
      // Alias expansion bomb: must be refused, not expanded.
      `a: &a ["x","x","x","x","x","x","x","x","x"]\nb: &b [*a,*a,*a,*a,*a,*a,*a,*a,*a]\nc: &c [*b,*b,*b,*b,*b,*b,*b,*b,*b]\nd: &d [*c,*c,*c,*c,*c,*c,*c,*c,*c]\ne: [*d,*d,*d,*d,*d,*d,*d,*d,*d]`,
      `${"- ".repeat(5000)}x`,
      `${"[".repeat(3000)}${"]".repeat(3000)}`,
      `${"a: {".repeat(2000)}${"}".repeat(2000)}`,
      "operation: SEND_SMS\noperation: SEND_EMAIL\n",
      "? [complex, key]\n: value\n",
      "%YAML 9.9\n---\noperation: X\n",
      "---\noperation: A\n---\noperation: B\n",
      "\ufeffoperation: SEND_SMS\n",
      "operation: !!str\n",
      "scores: !!map {completion_rate_5m: !!float 'abc'}\n",
    ),
  );
  // Decoded values too: the console and API hand parsed JSON straight to the parser.
  const decoded = fc
    .tuple(fc.constantFrom(...FIELD_NAMES), fc.jsonValue({ maxDepth: 3 }))
    .map(([k, v]) => ({ ...(parse(valid) as Record<string, unknown>), [k]: v }));
  return fc.oneof({ arbitrary: text, weight: 5 }, { arbitrary: decoded, weight: 2 }, { arbitrary: fc.jsonValue({ maxDepth: 2 }), weight: 1 });
}

/**
 * Throws generated factor lists at router-core's parser. Invariants: it never throws (its
 * documented contract is errors as values); every rejection lists at least one error, each
 * with a message and, unless it is about the document as a whole, the field path; and an
 * accepted list serialises to YAML that parses back to the same value.
 */
export function runYamlFuzz(valid: string, runs: number, seed: number): TYamlFuzzReport {
  const t0 = performance.now();
  const report: TYamlFuzzReport = { cases: 0, accepted: 0, rejected: 0, errors: 0, documentLevel: 0, violations: [], violationCount: 0, ms: 0 };
  const violate = (v: TYamlViolation) => {
    report.violationCount += 1;
    if (report.violations.length < 10) report.violations.push(v);
  };
  fc.assert(
    fc.property(yamlCaseArbitrary(valid), (input) => {
      report.cases += 1;
      const shown = (typeof input === "string" ? input : (JSON.stringify(input) ?? String(input))).slice(0, 160);
      let result: ReturnType<typeof parseFactorList>;
      try {
        result = parseFactorList(input);
      } catch (err) {
        violate({ invariant: "never_throws", input: shown, detail: err instanceof Error ? err.message : String(err) });
        return true;
      }
      if (result.ok) {
        report.accepted += 1;
        const again = parseFactorList(factorListToYaml(result.value));
        if (!again.ok || canonicalJson(again.value) !== canonicalJson(result.value)) {
          violate({ invariant: "round_trip", input: shown, detail: again.ok ? "value changed" : JSON.stringify(again.errors).slice(0, 200) });
        }
        return true;
      }
      report.rejected += 1;
      if (result.errors.length === 0) violate({ invariant: "errors_name_a_field", input: shown, detail: "rejected with no error" });
      for (const e of result.errors) {
        report.errors += 1;
        if (typeof e.message !== "string" || e.message.trim() === "")
          violate({ invariant: "errors_name_a_field", input: shown, detail: `empty message at "${e.path}"` });
        else if (isDocumentLevel(e.message)) report.documentLevel += 1;
        else if (e.path === "") violate({ invariant: "errors_name_a_field", input: shown, detail: `no field path: ${e.message}` });
      }
      return true;
    }),
    { numRuns: runs, seed },
  );
  report.ms = performance.now() - t0;
  return report;
}

export function formatYamlReport(r: TYamlFuzzReport): string {
  const lines = [
    `factor-list parser: ${r.cases} cases in ${(r.ms / 1000).toFixed(1)} s — ${r.accepted} accepted, ${r.rejected} rejected with ${r.errors} errors (${r.documentLevel} about the whole document)`,
    `${r.violationCount === 0 ? "ok  " : "FAIL"} parser invariants (never throws, every error names its field, round trip): ${r.violationCount} violations`,
  ];
  for (const v of r.violations) lines.push(`       [${v.invariant}] ${v.detail}\n         input: ${JSON.stringify(v.input)}`);
  return lines.join("\n");
}
