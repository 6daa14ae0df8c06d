import { isMap, isScalar, isSeq, LineCounter, parseDocument, stringify, type Document, type Node, type YAMLError } from "yaml";
import type { z } from "zod";
import { SCORE_DIRECTIONS, SCORE_NAMES } from "./names";
import { TOP_LEVEL_FIELDS, ZCircuitBreaker, ZFactorList, ZGuardrails, ZRegionRule, ZSafety, ZScore, type TFactorList } from "./schema";
import { checkPolicyTextBounds } from "./text-bounds";

/** `line` and `column` (1-based) where the text is at fault: the syntax error, or the field a schema error names. */
export type TPolicyError = { path: string; message: string; line?: number; column?: number };
export type TParseResult = { ok: true; value: TFactorList; warnings: TPolicyError[] } | { ok: false; errors: TPolicyError[] };

/** Section keys whose members text extraction of the paper flattens to the top level. */
const SECTION_MEMBERS: Record<string, readonly string[]> = {
  scores: Object.keys(SCORE_DIRECTIONS),
  safety: ["max_traffic_shift_per_minute", "primary_probe_share", "primary_recovery_cooldown_seconds", "require_reason_code"],
  guardrails: ["max_p95_ms", "max_cost_per_request", "min_confidence"],
};

/**
 * Parses a factor list from YAML/JSON text or an already-decoded value. Never throws: garbage
 * input comes back as errors, each naming the field path (`scores.p95_latency_5m.weight`).
 */
export function parseFactorList(input: unknown): TParseResult {
  let raw = input;
  let located: TLocated | null = null;
  if (typeof input === "string") {
    const decoded = decodeYamlText(input);
    if (!decoded.ok) return decoded;
    raw = decoded.value;
    located = decoded.located;
  }
  const warnings: TPolicyError[] = [];
  raw = regroupFlattenedSections(raw, warnings);
  const result = ZFactorList.safeParse(raw);
  if (result.success) return { ok: true, value: result.data, warnings };
  return { ok: false, errors: result.error.issues.flatMap((issue) => toPolicyErrors(issue, located)) };
}

/** Decoded text with what `locateYamlPath` needs to find a field in it. */
export type TLocated = { doc: Document; lines: LineCounter };

/**
 * YAML/JSON text within the policy text bounds, decoded with duplicate keys refused; syntax
 * errors carry their line and column. Shared with configuration bundles (lib/catalog/bundle.ts).
 */
export function decodeYamlText(text: string): { ok: true; value: unknown; located: TLocated } | { ok: false; errors: TPolicyError[] } {
  const outOfBounds = checkPolicyTextBounds(text);
  if (outOfBounds) return { ok: false, errors: [outOfBounds] };
  try {
    // JSON is a subset of YAML 1.2, so one decoder serves both codecs.
    const lineCounter = new LineCounter();
    const doc = parseDocument(text, { uniqueKeys: true, prettyErrors: false, lineCounter });
    if (doc.errors.length > 0) return { ok: false, errors: doc.errors.map((e) => yamlError(e, text, lineCounter)) };
    return { ok: true, value: doc.toJS({ maxAliasCount: 100 }), located: { doc, lines: lineCounter } };
  } catch (e) {
    return { ok: false, errors: [{ path: "", message: `invalid YAML: ${e instanceof Error ? e.message : String(e)}` }] };
  }
}

/**
 * A syntax error with its line and column, in the message too (the API and CLI show only the
 * message). The parser notices an unclosed flow collection only where the next block starts, so
 * such an error points at the bracket left open, the place the author has to fix.
 */
function yamlError(e: YAMLError, text: string, lines: LineCounter): TPolicyError {
  const opener = /^Flow (sequence|mapping)\b/.test(e.message) ? unclosedBracket(text, e.pos[0]) : -1;
  const at = lines.linePos(opener >= 0 ? opener : e.pos[0]);
  const noticed = lines.linePos(e.pos[0]);
  const where = opener >= 0 ? ` (the ${text[opener]} at line ${at.line}, column ${at.col} is still open at line ${noticed.line})` : "";
  return { path: "", message: `invalid YAML at line ${at.line}, column ${at.col}: ${e.message}${where}`, line: at.line, column: at.col };
}

/** Offset of the last [ or { before `end` that no bracket closes, skipping quoted text and comments; -1 if none. */
function unclosedBracket(text: string, end: number): number {
  const open: number[] = [];
  let quote: string | null = null;
  for (let i = 0; i < end; i++) {
    const c = text[i]!;
    if (quote !== null) {
      if (c === quote) quote = null;
      else if (c === "\\" && quote === '"') i++;
      continue;
    }
    if (c === '"' || c === "'") quote = c;
    else if (c === "#" && (i === 0 || /\s/.test(text[i - 1]!))) while (i < end && text[i] !== "\n") i++;
    else if (c === "[" || c === "{") open.push(i);
    else if (c === "]" || c === "}") open.pop();
  }
  return open.length > 0 ? open[open.length - 1]! : -1;
}

/**
 * The paper's Listing 1 survives copy-paste from the PDF without indentation, turning
 * `scores:` into null and its members into top-level keys. Those members cannot be top-level
 * fields, so regrouping them under the empty section just above them is unambiguous; anything
 * else stays where it is and fails as an unknown field.
 */
function regroupFlattenedSections(raw: unknown, warnings: TPolicyError[]): unknown {
  if (raw === null || typeof raw !== "object" || Array.isArray(raw)) return raw;
  const out: Record<string, unknown> = {};
  let section: string | null = null;
  for (const [key, value] of Object.entries(raw as Record<string, unknown>)) {
    const members: readonly string[] | undefined = section === null || !Object.hasOwn(SECTION_MEMBERS, section) ? undefined : SECTION_MEMBERS[section];
    if (section !== null && members?.includes(key) && !TOP_LEVEL_FIELDS.includes(key)) {
      (out[section] as Record<string, unknown>)[key] = value;
      continue;
    }
    section = null;
    // hasOwn, not `in`: a key named toString or constructor must not find Object.prototype's.
    if (value === null && Object.hasOwn(SECTION_MEMBERS, key)) {
      section = key;
      out[key] = {};
      warnings.push({ path: key, message: `${key} was empty; regrouped the following ${key} fields under it` });
      continue;
    }
    out[key] = value;
  }
  return out;
}

function formatPath(path: readonly PropertyKey[]): string {
  let out = "";
  for (const part of path) {
    if (typeof part === "number") out += `[${part}]`;
    else out += out === "" ? String(part) : `.${String(part)}`;
  }
  return out;
}

function toPolicyErrors(issue: z.core.$ZodIssue, located: TLocated | null): TPolicyError[] {
  const base = formatPath(issue.path);
  if (issue.code === "unrecognized_keys") {
    const known = base === "" ? TOP_LEVEL_FIELDS : null;
    return issue.keys.map((key) => ({
      path: base === "" ? key : `${base}.${key}`,
      message: known ? `unknown field "${key}"; known fields: ${known.join(", ")}` : `unknown field "${key}"`,
      ...locateYamlPath(located, [...issue.path, key]),
    }));
  }
  if (issue.code === "invalid_type" && base === "") {
    return [{ path: base, message: "a factor list must be a mapping of fields (operation, gates, scores, ...)" }];
  }
  return [{ path: base, message: issue.message, ...locateYamlPath(located, issue.path) }];
}

/**
 * Where in the text a schema error's field is: the key of the deepest field on its path that the
 * text has (a missing field points at the mapping that lacks it). Nothing when not even the first
 * step is in the text, e.g. a missing top-level field, or text regrouped from a flattened paste.
 */
export function locateYamlPath(located: TLocated | null, path: readonly PropertyKey[]): { line: number; column: number } | Record<string, never> {
  if (located === null) return {};
  let node: unknown = located.doc.contents;
  let at: Node | null = null;
  for (const step of path) {
    if (isMap(node)) {
      const pair = node.items.find((p) => isScalar(p.key) && String(p.key.value) === String(step));
      if (!pair) break;
      at = isScalar(pair.key) ? pair.key : null;
      node = pair.value;
    } else if (isSeq(node) && typeof step === "number" && node.items[step] !== undefined) {
      node = node.items[step];
      at = node as Node;
    } else break;
  }
  const offset = at?.range?.[0];
  if (offset === undefined) return {};
  const pos = located.lines.linePos(offset);
  return { line: pos.line, column: pos.col };
}

/**
 * The order a person reads a factor list in: operation first, then the paper's Listing 1 order
 * (router-core/policy/listing1.yaml), then the other fields in schema order; scores and safety
 * members as Listing 1 lists them; regions by name. Stored documents come back from jsonb in its
 * key order (by length), which is stable but not readable.
 */
const LISTING1_ORDER = [
  "operation",
  "description",
  "providers",
  "refresh_interval_seconds",
  "metric_window_minutes",
  "min_sample_size",
  "fallback_policy",
  "gates",
  "scores",
  "safety",
];
const MEMBER_ORDER: Record<string, readonly string[]> = {
  scores: ["completion_rate_5m", "p95_latency_5m", "cost_per_request", "recent_incident_penalty", "confidence_from_sample", ...SCORE_NAMES],
  safety: ["max_traffic_shift_per_minute", "primary_probe_share", "primary_recovery_cooldown_seconds", "require_reason_code", ...Object.keys(ZSafety.shape)],
  guardrails: Object.keys(ZGuardrails.shape),
  circuit_breaker: Object.keys(ZCircuitBreaker.shape),
};

function ordered(value: unknown, order: readonly string[]): unknown {
  if (value === null || typeof value !== "object" || Array.isArray(value)) return value;
  const o = value as Record<string, unknown>;
  const keys = [...new Set([...order.filter((k) => Object.hasOwn(o, k)), ...Object.keys(o).sort()])];
  return Object.fromEntries(keys.map((k) => [k, o[k]]));
}

export function factorListInFieldOrder(fl: TFactorList): TFactorList {
  const top = ordered(fl, [...LISTING1_ORDER, ...TOP_LEVEL_FIELDS]) as Record<string, unknown>;
  for (const [field, order] of Object.entries(MEMBER_ORDER)) if (field in top) top[field] = ordered(top[field], order);
  if (top.scores && typeof top.scores === "object")
    top.scores = Object.fromEntries(Object.entries(top.scores as Record<string, unknown>).map(([k, v]) => [k, ordered(v, Object.keys(ZScore.shape))]));
  if (top.regions && typeof top.regions === "object") {
    const regions = ordered(top.regions, []) as Record<string, unknown>;
    top.regions = Object.fromEntries(Object.entries(regions).map(([k, v]) => [k, ordered(v, Object.keys(ZRegionRule.shape))]));
  }
  return top as TFactorList;
}

/** Canonical YAML with every default filled in, so a stored version reads the same everywhere; fields in reading order. */
export function factorListToYaml(fl: TFactorList): string {
  return stringify(factorListInFieldOrder(fl), { lineWidth: 0 });
}

export function factorListToJson(fl: TFactorList): string {
  return `${JSON.stringify(factorListInFieldOrder(fl), null, 2)}\n`;
}
