import { quantile, type TBenchFigure, type TBenchInvariant, type TBenchResultInput, type TBenchTable } from "../lib/bench-results";
import type { AppInstance } from "./instances";
import type { TPhaseStats } from "./load";
import type { TLedgerCheck } from "./verify";

/** What a fault scenario hands its script: printed as tables, written as bench-results/<name>.json. */
export type TFaultReport = Omit<TBenchResultInput, "name" | "title" | "command">;

const round = (n: number, digits = 1) => (Number.isFinite(n) ? Math.round(n * 10 ** digits) / 10 ** digits : null);

function formatCounts(m: Record<string, number>): string {
  const keys = Object.keys(m).sort();
  return keys.length === 0 ? "-" : keys.map((k) => `${k}:${m[k]}`).join(" ");
}

/** One row per phase: what was offered, what was answered and how, what failed and how. */
export function phaseTable(phases: ReadonlyMap<string, TPhaseStats>): TBenchTable {
  const rows: TBenchTable["rows"] = [];
  for (const [name, p] of phases) {
    if (p.decides === 0 && p.shed === 0) continue;
    const sorted = Float64Array.from(p.decideLatencyMs).sort();
    const ok = p.decideStatus["200"] ?? 0;
    const errors = Object.fromEntries(Object.entries(p.decideStatus).filter(([k]) => k !== "200"));
    const outcomeErrors = Object.fromEntries(Object.entries(p.outcomeStatus).filter(([k]) => k !== "201" && k !== "202"));
    rows.push([
      name,
      p.decides,
      ok,
      formatCounts(p.durability),
      p.degraded,
      formatCounts(errors),
      (p.outcomeStatus["201"] ?? 0) + (p.outcomeStatus["202"] ?? 0),
      formatCounts(outcomeErrors),
      round(quantile(sorted, 0.5)),
      round(quantile(sorted, 0.99)),
      p.shed,
    ]);
  }
  return {
    title: "load by phase (decide status and durability, outcome status, decide latency)",
    columns: ["phase", "decides", "200", "durability", "degraded", "decide errors", "outcomes ok", "outcome errors", "p50 ms", "p99 ms", "shed"],
    rows,
  };
}

/** HTTP 500s (any 5xx but 503, which is a deliberate "retry later" with Retry-After) never happen. */
/** Every outcome refers to a decision the load got from Switchyard: none may be refused as unknown. */
export function unknownDecisionInvariant(phases: ReadonlyMap<string, TPhaseStats>): TBenchInvariant {
  let n = 0;
  for (const p of phases.values()) n += p.outcomeStatus["404"] ?? 0;
  return { label: "outcomes refused as unknown (404) for decisions Switchyard made", ok: n === 0, detail: String(n) };
}

export function serverErrorInvariant(phases: ReadonlyMap<string, TPhaseStats>): TBenchInvariant {
  let n = 0;
  const seen: Record<string, number> = {};
  for (const p of phases.values()) {
    for (const m of [p.decideStatus, p.outcomeStatus]) {
      for (const [k, v] of Object.entries(m)) {
        const s = Number(k);
        if (s >= 500 && s !== 503) {
          n += v;
          seen[k] = (seen[k] ?? 0) + v;
        }
      }
    }
  }
  return { label: "HTTP 500s (decide and outcomes)", ok: n === 0, detail: n === 0 ? "0" : formatCounts(seen) };
}

export function ledgerInvariants(l: TLedgerCheck): TBenchInvariant[] {
  return [
    {
      label: "acknowledged decisions missing from the decision table",
      ok: l.missingDecisions === 0,
      detail: `${l.missingDecisions} of ${l.acknowledgedDecisions}${l.missingDecisions > 0 ? ` (e.g. ${l.missingDecisionSample.join(", ")})` : ""}`,
    },
    {
      label: "acknowledged outcomes missing from provider_call_outcome",
      ok: l.missingOutcomes === 0,
      detail: `${l.missingOutcomes} of ${l.acknowledgedOutcomes}${l.missingOutcomes > 0 ? ` (e.g. decisions ${l.missingOutcomeSample.join(", ")})` : ""}`,
    },
  ];
}

export function figure(label: string, value: number | null, unit: string, target?: string): TBenchFigure {
  return { label, value: value === null ? null : round(value, 2), unit, ...(target ? { target } : {}) };
}

function pad(cells: readonly string[], widths: readonly number[]): string {
  return cells
    .map((c, i) => c.padEnd(widths[i]!))
    .join("  ")
    .trimEnd();
}

function renderTable(t: TBenchTable): string {
  const cells = [t.columns, ...t.rows.map((r) => r.map((c) => (c === null ? "-" : String(c))))];
  const widths = t.columns.map((_, i) => Math.max(...cells.map((r) => (r[i] ?? "").length)));
  return [
    t.title,
    pad(t.columns, widths),
    pad(
      widths.map((w) => "-".repeat(w)),
      widths,
    ),
    ...cells.slice(1).map((r) => pad(r, widths)),
  ].join("\n");
}

/** The report as aligned plain-text tables, for the terminal. */
export function renderReport(title: string, r: TFaultReport): string {
  const out: string[] = [title, "=".repeat(title.length), ""];
  const params = Object.entries(r.parameters).map(([k, v]) => `${k}=${JSON.stringify(v)}`);
  out.push(`parameters: ${params.join(" ")}`, "");
  const figureRows = r.figures.map((f) => [f.label, f.value === null ? "-" : String(f.value), f.unit, f.target ?? ""]);
  out.push(renderTable({ title: "figures", columns: ["figure", "value", "unit", "target"], rows: figureRows }), "");
  for (const t of r.tables ?? []) out.push(renderTable(t), "");
  if (r.invariants?.length) {
    out.push(
      renderTable({
        title: "invariants",
        columns: ["check", "result", "detail"],
        rows: r.invariants.map((i) => [i.label, i.ok ? "ok" : "BROKEN", i.detail ?? ""]),
      }),
      "",
    );
  }
  for (const n of r.notes ?? []) out.push(`note: ${n}`);
  return out.join("\n");
}

/** No instance exited on its own (a crash), as opposed to the kills the scenario ordered. */
export function crashInvariant(instances: readonly AppInstance[]): TBenchInvariant {
  const crashed = instances.filter((i) => i.crashes.length > 0);
  return {
    label: "no instance crashed",
    ok: crashed.length === 0,
    detail: crashed.length === 0 ? "0" : crashed.map((i) => `${i.name}: ${i.crashes.map((c) => c.signal ?? `exit ${c.code}`).join(", ")}`).join("; "),
  };
}
