"use client";

import { useQuery, useQueryClient } from "@tanstack/react-query";
import { useState } from "react";
import type { TEvaluationSourceOption, TEvaluationView } from "@/lib/console/evaluation-types";
import type { TPolicyId, TScenarioId, TTraceMinute } from "@/router-core/replay";
import { fetchJson } from "../fetch-json";
import { ControlErrorView } from "../providers/control-error";
import { controlRequest, type TControlError } from "../providers/control-request";
import { ReplayProgress } from "../replay/replay-progress";
import { Table14, Table15 } from "./evaluation-tables";
import { TraceCharts } from "./trace-charts";

type TSelection = { scenario: TScenarioId; policy: TPolicyId };
const CHARTS_HEIGHT = 214;

function sourceLabel(s: TEvaluationSourceOption): string {
  return s.status ? `${s.label} · ${s.status.replace("_", " ")}` : s.label;
}

/** Groups the picker's options: the reference first, then each operation's versions. */
function SourcePicker({ sources, value, onChange }: { sources: TEvaluationSourceOption[]; value: string; onChange: (key: string) => void }) {
  const operations = [...new Set(sources.flatMap((s) => (s.operation ? [s.operation] : [])))];
  return (
    <label className="flex items-center gap-2 text-xs">
      <span className="muted">Factor list</span>
      <select className="field mono" value={value} onChange={(e) => onChange(e.target.value)} data-testid="evaluation-source">
        {sources
          .filter((s) => s.operation === null)
          .map((s) => (
            <option key={s.key} value={s.key}>
              {sourceLabel(s)}
            </option>
          ))}
        {operations.map((op) => (
          <optgroup key={op} label={op}>
            {sources
              .filter((s) => s.operation === op)
              .map((s) => (
                <option key={s.key} value={s.key}>
                  {sourceLabel(s)}
                </option>
              ))}
          </optgroup>
        ))}
      </select>
    </label>
  );
}

function TracePanel({ version, fingerprint, selection, degraded }: { version: string; fingerprint: string; selection: TSelection; degraded: { from: number; to: number } }) {
  const trace = useQuery({
    queryKey: ["evaluation-trace", version, fingerprint, selection.scenario, selection.policy],
    queryFn: () => fetchJson<{ fingerprint: string; trace: TTraceMinute[] } | null>(`/api/console/evaluation/trace?${new URLSearchParams({ version, ...selection })}`),
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

export function EvaluationView({ sources, initial, canRun, initialSelection }: { sources: TEvaluationSourceOption[]; initial: TEvaluationView; canRun: boolean; initialSelection: TSelection }) {
  const [version, setVersion] = useState(initial.source.key);
  const [selection, setSelection] = useState<TSelection>(initialSelection);
  const [seed, setSeed] = useState(String(initial.result?.seed ?? initial.defaultSeed));
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<TControlError | null>(null);
  const client = useQueryClient();
  const isInitial = version === initial.source.key;
  const query = useQuery({
    queryKey: ["evaluation", version],
    queryFn: () => fetchJson<TEvaluationView>(`/api/console/evaluation?${new URLSearchParams({ version })}`),
    initialData: isInitial ? initial : undefined,
    // Poll while a run is queued or running; a finished result does not change by itself.
    refetchInterval: (q) => (q.state.data?.status?.state === "running" || q.state.data?.status?.state === "queued" ? 1_000 : false),
  });
  const view = query.data;
  const result = view?.result ?? null;
  const running = view?.status?.state === "running" || view?.status?.state === "queued";
  const seedNumber = Number(seed);
  const seedError = seed.trim() === "" || !Number.isInteger(seedNumber) || seedNumber < 0 || seedNumber > 2_147_483_647 ? "seed must be an integer from 0 to 2147483647" : null;

  const syncUrl = (v: string, s: TSelection) => window.history.replaceState(null, "", `/evaluation?${new URLSearchParams({ version: v, ...s })}`);
  const chooseVersion = (v: string) => {
    setVersion(v);
    setError(null);
    syncUrl(v, selection);
  };
  const choose = (s: TSelection) => {
    setSelection(s);
    syncUrl(version, s);
  };
  const run = async () => {
    if (seedError) return;
    setBusy(true);
    setError(null);
    const res = await controlRequest<TEvaluationView>("/api/console/evaluation", "POST", { version, seed: seedNumber });
    setBusy(false);
    if (!res.ok) return setError(res.error);
    client.setQueryData(["evaluation", version], res.value);
  };
  const scenarioWindow = result?.scenarios.find((s) => s.id === selection.scenario);
  const selectedCell = result?.cells.find((c) => c.scenario === selection.scenario && c.policy === selection.policy);

  return (
    <div className="flex flex-col gap-4" data-testid="evaluation">
      <section className="panel flex flex-col gap-2 p-3">
        <div className="flex flex-wrap items-center gap-3">
          <h1 className="text-sm font-semibold">Evaluation · synthetic replay (paper section 8)</h1>
          <SourcePicker sources={sources} value={version} onChange={chooseVersion} />
          {canRun ? (
            <form
              className="flex items-center gap-2 text-xs"
              onSubmit={(e) => {
                e.preventDefault();
                void run();
              }}
            >
              <label className="flex items-center gap-1">
                <span className="muted">Seed</span>
                <input
                  className="field mono w-24"
                  inputMode="numeric"
                  value={seed}
                  onChange={(e) => setSeed(e.target.value)}
                  aria-invalid={seedError !== null}
                  aria-describedby={seedError ? "seed-error" : undefined}
                  data-testid="evaluation-seed"
                />
              </label>
              <button type="submit" className="btn" aria-pressed="true" disabled={busy || running || seedError !== null} data-testid="evaluation-run">
                {busy ? "Queueing…" : running ? "Running…" : "Run evaluation"}
              </button>
              {seedError ? (
                <span id="seed-error" style={{ color: "var(--bad)" }}>
                  {seedError}
                </span>
              ) : null}
            </form>
          ) : (
            <span className="muted text-xs">Running an evaluation needs the evaluation.run permission (policy authors, compliance, approvers).</span>
          )}
          <span className="ml-auto">
            <ReplayProgress status={view?.status ?? null} finishedAt={result?.finishedAt ?? null} testId="evaluation-status" />
          </span>
        </div>
        <ControlErrorView error={error} />
        {query.isError ? (
          <p className="text-xs" style={{ color: "var(--bad)" }} role="alert">
            Could not refresh: {query.error.message}
          </p>
        ) : null}
        <p className="muted text-xs">
          60 simulated minutes × 600 requests per scenario and policy, providers A (primary), B and C in EU 50% / NA 30% / APAC 20%; A degrades from minute 20 to 40. The factor-list policy
          is router-core&apos;s decide and controller running the chosen list; static primary, conventional failover and circuit breaker are the paper&apos;s baselines. Runs are deterministic
          for a list and seed, so a result is kept until the list or the seed changes.
        </p>
        {result && (result.providerMap.length > 0 || result.adaptations.length > 0) ? (
          <p className="text-xs" data-testid="evaluation-mapping">
            <span className="muted">Providers mapped onto the scenarios: </span>
            <span className="mono">{result.providerMap.map((m) => `${m.from} → ${m.to}`).join(" · ") || "none named: A, B, C in catalogue order"}</span>
            {result.adaptations.length > 0 ? <span className="muted"> · not modelled: {result.adaptations.join("; ")}</span> : null}
          </p>
        ) : null}
      </section>

      {!result ? (
        <section className="panel flex items-center justify-center p-6 text-sm" style={{ minHeight: 240 }} data-testid="evaluation-empty">
          {running ? (
            <span className="muted">The evaluation is running on a worker thread; the tables appear when it is done (usually under 15 s).</span>
          ) : view?.status?.state === "failed" ? (
            <span style={{ color: "var(--bad)" }}>The evaluation failed: {view.status.error}</span>
          ) : canRun ? (
            <span className="muted">{view?.source.label ?? "This factor list"} has not been evaluated since the server started. Choose a seed and run it.</span>
          ) : (
            <span className="muted">{view?.source.label ?? "This factor list"} has not been evaluated since the server started; a policy author, compliance or an approver can run it.</span>
          )}
        </section>
      ) : (
        <>
          <section className="panel" aria-label="Table 14">
            <h2 className="panel-title">
              Table 14 · policies × scenarios <span className="muted font-normal">· {view?.source.label}, seed {result.seed}, {result.runs} runs in {(result.elapsedMs / 1000).toFixed(1)} s · paper figures in grey</span>
            </h2>
            <div className="overflow-x-auto">
              <Table14 result={result} selected={selection} onSelect={choose} />
            </div>
          </section>

          <section className="panel" aria-label="Per-minute trace">
            <h2 className="panel-title">
              Per minute · {selectedCell ? `${selectedCell.scenarioLabel} × ${selectedCell.policyLabel}` : "choose a row above"}{" "}
              <span className="muted font-normal">
                · shaded: degradation window{scenarioWindow ? ` (minutes ${scenarioWindow.degradedFrom}–${scenarioWindow.degradedTo}, ${scenarioWindow.affectedRegions.join(", ")})` : ""}
              </span>
            </h2>
            <div className="px-2 pb-2">
              {scenarioWindow ? (
                <TracePanel version={version} fingerprint={result.fingerprint} selection={selection} degraded={{ from: scenarioWindow.degradedFrom, to: scenarioWindow.degradedTo }} />
              ) : null}
            </div>
          </section>

          <div className="grid grid-cols-1 gap-4 xl:grid-cols-[3fr_2fr]">
            <section className="panel" aria-label="Table 15">
              <h2 className="panel-title">
                Table 15 · sensitivity <span className="muted font-normal">· factor list on {result.sensitivity.scenarios.join(", ")}; indices relative to scen_01_baseline = 100</span>
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
      )}
    </div>
  );
}
