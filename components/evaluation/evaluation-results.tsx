"use client";

import { useQuery } from "@tanstack/react-query";
import type { TEvaluationSummary, TEvaluationView } from "@/lib/console/evaluation/evaluation-types";
import type { TPolicyId, TScenarioId, TTraceMinute } from "@/router-core/replay";
import { fetchJson } from "../fetch-json";
import { Table14, Table15 } from "./evaluation-tables";
import { TraceCharts } from "./trace-charts";

export type TSelection = { scenario: TScenarioId; policy: TPolicyId };
const CHARTS_HEIGHT = 214;

function TracePanel({
  version,
  fingerprint,
  selection,
  degraded,
}: {
  version: string;
  fingerprint: string;
  selection: TSelection;
  degraded: { from: number; to: number };
}) {
  const trace = useQuery({
    queryKey: ["evaluation-trace", version, fingerprint, selection.scenario, selection.policy],
    queryFn: () =>
      fetchJson<{ fingerprint: string; trace: TTraceMinute[] } | null>(`/api/console/evaluation/trace?${new URLSearchParams({ version, ...selection })}`),
    // A trace of a finished run never changes; a new run has a new fingerprint, hence a new key.
    refetchInterval: false,
    staleTime: Infinity,
    placeholderData: undefined,
  });
  if (trace.isError) {
    return (
      <p className="flex items-center justify-center text-sm" style={{ height: CHARTS_HEIGHT, color: "var(--bad)" }} role="alert">
        Could not load the trace: {trace.error.message}
      </p>
    );
  }
  if (trace.data === undefined) return <div className="skeleton" style={{ height: CHARTS_HEIGHT }} aria-label="loading the trace" />;
  if (trace.data === null) {
    return (
      <p className="muted flex items-center justify-center text-sm" style={{ height: CHARTS_HEIGHT }}>
        The server no longer holds this run (results live in memory and a restart forgets them): reload the page.
      </p>
    );
  }
  return <TraceCharts trace={trace.data.trace} degraded={degraded} />;
}

/** What stands in for the tables while there is no result: running, failed, or never run. */
export function EvaluationEmpty({ view, running, canRun }: { view: TEvaluationView | undefined; running: boolean; canRun: boolean }) {
  return (
    <section className="panel flex items-center justify-center p-6 text-sm" style={{ minHeight: 240 }} data-testid="evaluation-empty">
      {running ? (
        <span className="muted">The evaluation is running on a worker thread; the tables appear when it is done (usually under 15 s).</span>
      ) : view?.status?.state === "failed" ? (
        <span style={{ color: "var(--bad)" }}>The evaluation failed: {view.status.error}</span>
      ) : canRun ? (
        <span className="muted">{view?.source.label ?? "This factor list"} has not been evaluated since the server started. Choose a seed and run it.</span>
      ) : (
        <span className="muted">
          {view?.source.label ?? "This factor list"} has not been evaluated since the server started; a policy author, compliance or an approver can run it.
        </span>
      )}
    </section>
  );
}

/** Table 14 (click a row for its per-minute trace), the trace, Table 15 and the notes. */
export function EvaluationResults({
  view,
  result,
  version,
  selection,
  choose,
}: {
  view: TEvaluationView | undefined;
  result: TEvaluationSummary;
  version: string;
  selection: TSelection;
  choose: (s: TSelection) => void;
}) {
  const scenarioWindow = result.scenarios.find((s) => s.id === selection.scenario);
  const selectedCell = result.cells.find((c) => c.scenario === selection.scenario && c.policy === selection.policy);
  return (
    <>
      <section className="panel" aria-label="Table 14">
        <h2 className="panel-title">
          Table 14 · policies × scenarios{" "}
          <span className="muted font-normal">
            · {view?.source.label}, seed {result.seed}, {result.runs} runs in {(result.elapsedMs / 1000).toFixed(1)} s · paper figures in grey
          </span>
        </h2>
        <div className="overflow-x-auto">
          <Table14 result={result} selected={selection} onSelect={choose} />
        </div>
      </section>

      <section className="panel" aria-label="Per-minute trace">
        <h2 className="panel-title">
          Per minute · {selectedCell ? `${selectedCell.scenarioLabel} × ${selectedCell.policyLabel}` : "choose a row above"}{" "}
          <span className="muted font-normal">
            · shaded: degradation window
            {scenarioWindow ? ` (minutes ${scenarioWindow.degradedFrom}–${scenarioWindow.degradedTo}, ${scenarioWindow.affectedRegions.join(", ")})` : ""}
          </span>
        </h2>
        <div className="px-2 pb-2">
          {scenarioWindow ? (
            <TracePanel
              version={version}
              fingerprint={result.fingerprint}
              selection={selection}
              degraded={{ from: scenarioWindow.degradedFrom, to: scenarioWindow.degradedTo }}
            />
          ) : null}
        </div>
      </section>

      <div className="grid grid-cols-1 gap-4 xl:grid-cols-[3fr_2fr]">
        <section className="panel" aria-label="Table 15">
          <h2 className="panel-title">
            Table 15 · sensitivity{" "}
            <span className="muted font-normal">· factor list on {result.sensitivity.scenarios.join(", ")}; indices relative to scen_01_baseline = 100</span>
          </h2>
          <div className="overflow-x-auto">
            <Table15 result={result} />
          </div>
        </section>
        <section className="panel" aria-label="Notes">
          <h2 className="panel-title">What the numbers say</h2>
          <div className="flex flex-col gap-2 px-3 pb-3 text-xs" data-testid="evaluation-notes">
            {result.notes.map((n, i) => (
              <p key={i} style={{ whiteSpace: "pre-line" }}>
                {n}
              </p>
            ))}
          </div>
        </section>
      </div>
    </>
  );
}
