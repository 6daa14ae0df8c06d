import fc from "fast-check";
import { FUZZ_CATEGORIES, fuzzRequestArbitrary, type TFuzzCategory, type TFuzzEndpoint, type TFuzzRequest } from "./fuzz-cases";
import { rowChanges, type RowCounter } from "./row-counts";

/** What came back for one request. */
export type TObserved =
  | { ok: true; status: number; contentType: string; body: string }
  | { ok: false; reason: string; detail: string; tolerated: boolean }
  /** The request cannot exist on the wire or in a Request (e.g. a forbidden method in fetch), or the framework answers before the handler. */
  | { skipped: "unsendable" | "not_routed"; detail: string };

export const INVARIANTS = [
  "no_5xx",
  "no_dropped_connection",
  "json_error_body",
  "no_rows_when_rejected",
  "credentials_enforced",
  "duplicate_keys_refused",
  "no_answer_for_another_request",
] as const;
export type TInvariant = (typeof INVARIANTS)[number];

export type TViolation = { invariant: TInvariant; category: TFuzzCategory; endpoint: string; request: string; detail: string };

export type TCategoryStats = {
  sent: number;
  skipped: number;
  status2xx: number;
  status4xx: number;
  status503: number;
  status5xx: number;
  dropped: number;
  tolerated: number;
  withField: number;
};

export type TFuzzReport = {
  requests: number;
  byCategory: Record<TFuzzCategory, TCategoryStats>;
  byEndpoint: Record<string, number>;
  byStatus: Record<string, number>;
  violationCounts: Record<TInvariant, number>;
  /** The first violations of each invariant, for the report. */
  violations: TViolation[];
  ms: number;
};

const KEEP_PER_INVARIANT = 5;

export function describeRequest(req: TFuzzRequest): string {
  const body = req.body ? ` body ${req.body.length} B: ${req.body.subarray(0, 80).toString("utf8").replace(/\s+/g, " ")}` : "";
  const target = req.target.length > 100 ? `${req.target.slice(0, 100)}…` : req.target;
  return `${req.method} ${target}${body}`;
}

/**
 * An error answer must say what went wrong: a JSON body with a code and a message (which names
 * the field when a field is at fault). HEAD answers carry no body by definition.
 */
export function errorBodyProblem(method: string, contentType: string, body: string, endpoint = ""): string | null {
  if (method === "HEAD") return null;
  if (!/json/i.test(contentType)) return `content-type is "${contentType}", not JSON`;
  let parsed: unknown;
  try {
    parsed = JSON.parse(body);
  } catch {
    return `body is not JSON: ${body.slice(0, 80)}`;
  }
  const error = (parsed as { error?: { code?: unknown; message?: unknown; fields?: unknown; type?: unknown } } | null)?.error;
  // The OpenAI-compatible surface answers in OpenAI's own error shape, as its clients expect;
  // the router's own 404/405 in front of it answer in the contract's.
  if (endpoint.includes(" /api/v1/openai/") && openAiErrorProblem(error) === null) return null;
  // The Anthropic-compatible surface answers in Anthropic's: {type: "error", error: {type, message}}.
  if (endpoint.includes(" /api/v1/anthropic/") && anthropicErrorProblem(parsed) === null) return null;
  if (!error || typeof error.code !== "string" || error.code === "") return "body has no error.code";
  if (typeof error.message !== "string" || error.message.trim() === "") return "body has no error.message";
  // The error contract (docs/errors.md): code, message and optionally fields, nothing else.
  const extra = Object.keys(error).filter((k) => k !== "code" && k !== "message" && k !== "fields");
  if (extra.length > 0) return `error carries ${extra.join(", ")} (the contract has only code, message, fields)`;
  const fields = error.fields;
  if (
    fields !== undefined &&
    (!Array.isArray(fields) ||
      !fields.every((f) => typeof (f as { path?: unknown })?.path === "string" && typeof (f as { message?: unknown })?.message === "string"))
  ) {
    return "error.fields is not a list of {path, message}";
  }
  return null;
}

function openAiErrorProblem(error: { message?: unknown; type?: unknown } | undefined): string | null {
  if (!error || typeof error.message !== "string" || error.message.trim() === "") return "body has no error.message";
  if (typeof error.type !== "string" || error.type === "") return "body has no error.type (OpenAI's error shape)";
  const extra = Object.keys(error).filter((k) => !["message", "type", "param", "code"].includes(k));
  return extra.length > 0 ? `error carries ${extra.join(", ")} (OpenAI's shape has message, type, param, code)` : null;
}

function anthropicErrorProblem(body: unknown): string | null {
  const b = body as { type?: unknown; error?: { type?: unknown; message?: unknown } } | null;
  if (b?.type !== "error") return 'body.type is not "error" (Anthropic\'s error shape)';
  if (typeof b.error?.type !== "string" || b.error.type === "") return "body has no error.type (Anthropic's error shape)";
  if (typeof b.error.message !== "string" || b.error.message.trim() === "") return "body has no error.message";
  const extra = Object.keys(b.error).filter((k) => k !== "type" && k !== "message");
  return extra.length > 0 ? `error carries ${extra.join(", ")} (Anthropic's shape has type and message)` : null;
}

function namesField(body: string): boolean {
  try {
    const e = (JSON.parse(body) as { error?: { fields?: unknown } }).error;
    return Array.isArray(e?.fields) && e.fields.length > 0;
  } catch {
    return false;
  }
}

export type TFuzzRunOptions = {
  endpoints: TFuzzEndpoint[];
  runs: number;
  seed: number;
  send: (req: TFuzzRequest) => Promise<TObserved>;
  rows: RowCounter;
  /** True when this request carries no valid credentials for an endpoint that requires them: it must be refused. */
  mustRefuse: (req: TFuzzRequest) => boolean;
  /** Runs before each request; returns true when it wrote rows itself (a new session), so counting starts after it. */
  prepare?: () => Promise<boolean>;
  /** The endpoints refuse a body that repeats a key (the data plane); the control plane's handlers do not promise it. */
  refusesDuplicateKeys?: boolean;
  /** Tables a refused request may write by design (a failed sign-in's audit entry). */
  intendedWrites?: (req: TFuzzRequest, status: number | null) => readonly string[];
  /** Called every `progressEvery` requests (memory samples, progress line). */
  onProgress?: (done: number) => Promise<void> | void;
  progressEvery?: number;
};

/**
 * Sends `runs` generated requests one at a time and checks every answer: no 5xx except 503, no
 * dropped connection, a JSON error body on every 4xx, no row written by a refused request
 * (row counts are taken after every request, so a write is pinned on the request that made
 * it), no request without valid credentials accepted where they are required, no body with a
 * repeated key accepted where `refusesDuplicateKeys`, and no requestId reused for another region
 * answered with a decision (only the same request may be replayed).
 */
export async function runFuzz(opts: TFuzzRunOptions): Promise<TFuzzReport> {
  const t0 = performance.now();
  const emptyStats = (): TCategoryStats => ({
    sent: 0,
    skipped: 0,
    status2xx: 0,
    status4xx: 0,
    status503: 0,
    status5xx: 0,
    dropped: 0,
    tolerated: 0,
    withField: 0,
  });
  const report: TFuzzReport = {
    requests: 0,
    byCategory: Object.fromEntries(FUZZ_CATEGORIES.map((c) => [c, emptyStats()])) as Record<TFuzzCategory, TCategoryStats>,
    byEndpoint: {},
    byStatus: {},
    violationCounts: Object.fromEntries(INVARIANTS.map((i) => [i, 0])) as Record<TInvariant, number>,
    violations: [],
    ms: 0,
  };
  const violate = (invariant: TInvariant, req: TFuzzRequest, detail: string) => {
    report.violationCounts[invariant] += 1;
    if (report.violations.filter((v) => v.invariant === invariant).length < KEEP_PER_INVARIANT) {
      report.violations.push({ invariant, category: req.category, endpoint: req.endpoint, request: describeRequest(req), detail });
    }
  };

  let rowsBefore = await opts.rows.count();
  const arbitrary = fc.oneof(...opts.endpoints.map(fuzzRequestArbitrary));
  const every = opts.progressEvery ?? 500;

  await fc.assert(
    fc.asyncProperty(arbitrary, async (req) => {
      const stats = report.byCategory[req.category];
      if (opts.prepare && (await opts.prepare())) rowsBefore = await opts.rows.count();
      const res = await opts.send(req);
      if ("skipped" in res) {
        stats.skipped += 1;
        return true;
      }
      report.requests += 1;
      stats.sent += 1;
      report.byEndpoint[req.endpoint] = (report.byEndpoint[req.endpoint] ?? 0) + 1;
      let rejected = true;
      if (!res.ok) {
        report.byStatus[res.reason] = (report.byStatus[res.reason] ?? 0) + 1;
        if (res.tolerated) stats.tolerated += 1;
        else {
          stats.dropped += 1;
          violate("no_dropped_connection", req, `${res.reason}: ${res.detail}`);
        }
      } else {
        report.byStatus[res.status] = (report.byStatus[res.status] ?? 0) + 1;
        rejected = res.status >= 400;
        if (res.status >= 200 && res.status < 300) stats.status2xx += 1;
        else if (res.status === 503) stats.status503 += 1;
        else if (res.status >= 500) {
          stats.status5xx += 1;
          violate("no_5xx", req, `${res.status}: ${res.body.slice(0, 200)}`);
        } else if (res.status >= 400) {
          stats.status4xx += 1;
          const problem = errorBodyProblem(req.method, res.contentType, res.body, req.endpoint);
          if (problem) violate("json_error_body", req, `${res.status}: ${problem}`);
          if (namesField(res.body)) stats.withField += 1;
        }
        if (res.status < 400 && opts.mustRefuse(req)) violate("credentials_enforced", req, `answered ${res.status} without valid credentials`);
        if (res.status < 400 && req.category === "duplicate_keys" && opts.refusesDuplicateKeys)
          violate("duplicate_keys_refused", req, `answered ${res.status}`);
        if (res.status < 400 && req.category === "idempotency_reuse") {
          const asked = regionOf(req.body?.toString("utf8"));
          const answered = regionOf(res.body);
          if (asked !== answered) violate("no_answer_for_another_request", req, `asked for region ${asked}, answered with a decision for ${answered}`);
        }
      }
      const rowsAfter = await opts.rows.count();
      const intended = opts.intendedWrites?.(req, res.ok ? res.status : null) ?? [];
      const changed = rowChanges(rowsBefore, rowsAfter).filter((c) => !intended.includes(c.split(" ")[0]!));
      if (rejected && changed.length > 0) violate("no_rows_when_rejected", req, `refused, yet ${changed.join(", ")}`);
      rowsBefore = rowsAfter;
      const done = report.requests + Object.values(report.byCategory).reduce((n, c) => n + c.skipped, 0);
      if (opts.onProgress && done % every === 0) await opts.onProgress(done);
      return true;
    }),
    { numRuns: opts.runs, seed: opts.seed, endOnFailure: true },
  );
  report.ms = performance.now() - t0;
  return report;
}

function regionOf(json: string | undefined): unknown {
  try {
    return (JSON.parse(json ?? "null") as { region?: unknown } | null)?.region;
  } catch {
    return undefined;
  }
}

export function violationTotal(report: TFuzzReport): number {
  return Object.values(report.violationCounts).reduce((a, b) => a + b, 0);
}

function pad(cells: Array<string | number>, widths: number[]): string {
  return cells.map((c, i) => (i === 0 ? String(c).padEnd(widths[i]!) : String(c).padStart(widths[i]!))).join("  ");
}

/** The summary table: one row per category, then the invariants with their first violations. */
export function formatReport(title: string, report: TFuzzReport): string {
  const head = ["category", "sent", "skipped", "2xx", "4xx", "4xx+field", "503", "5xx", "dropped", "tolerated"];
  const widths = [20, 7, 8, 6, 6, 10, 5, 5, 8, 10];
  const lines = [`${title}: ${report.requests} requests in ${(report.ms / 1000).toFixed(1)} s`, pad(head, widths)];
  for (const [cat, s] of Object.entries(report.byCategory)) {
    lines.push(pad([cat, s.sent, s.skipped, s.status2xx, s.status4xx, s.withField, s.status503, s.status5xx, s.dropped, s.tolerated], widths));
  }
  lines.push(
    `statuses: ${Object.entries(report.byStatus)
      .map(([k, v]) => `${k}×${v}`)
      .join(" ")}`,
  );
  lines.push(
    `endpoints: ${Object.keys(report.byEndpoint).length} (${Object.entries(report.byEndpoint)
      .map(([k, v]) => `${k} ${v}`)
      .join("; ")})`,
  );
  for (const inv of Object.keys(report.violationCounts) as TInvariant[]) {
    const n = report.violationCounts[inv];
    lines.push(`${n === 0 ? "ok  " : "FAIL"} ${inv}: ${n} violation${n === 1 ? "" : "s"}`);
    for (const v of report.violations.filter((x) => x.invariant === inv))
      lines.push(`       [${v.category}] ${v.endpoint} — ${v.detail}\n         request: ${v.request}`);
  }
  return lines.join("\n");
}
