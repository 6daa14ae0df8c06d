"use client";

import type { TEvaluationSourceOption, TEvaluationView } from "@/lib/console/evaluation/evaluation-types";
import { ControlErrorView } from "../providers/control-error";
import type { TControlError } from "../providers/control-request";
import { ReplayProgress } from "../replay/replay-progress";

function sourceLabel(s: TEvaluationSourceOption): string {
  return s.status ? `${s.label} · ${s.status.replace("_", " ")}` : s.label;
}

/** Groups the picker's options: the reference first, then each operation's versions. */
export function SourcePicker({ sources, value, onChange }: { sources: TEvaluationSourceOption[]; value: string; onChange: (key: string) => void }) {
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

function SeedForm({
  seed,
  setSeed,
  seedError,
  busy,
  running,
  run,
}: {
  seed: string;
  setSeed: (s: string) => void;
  seedError: string | null;
  busy: boolean;
  running: boolean;
  run: () => void;
}) {
  return (
    <form
      className="flex items-center gap-2 text-xs"
      onSubmit={(e) => {
        e.preventDefault();
        run();
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
      <button type="submit" className="btn btn-primary" disabled={busy || running || seedError !== null} data-testid="evaluation-run">
        {busy ? "Queueing…" : running ? "Running…" : "Run evaluation"}
      </button>
      {seedError ? (
        <span id="seed-error" style={{ color: "var(--bad)" }}>
          {seedError}
        </span>
      ) : null}
    </form>
  );
}

export type TSeedControl = { seed: string; setSeed: (s: string) => void; seedError: string | null; busy: boolean; run: () => void };

/** The factor-list picker, the seed and run button (for those who may run), progress, errors and what the replay models. */
export function EvaluationHeader({
  sources,
  version,
  chooseVersion,
  canRun,
  seedControl,
  view,
  running,
  error,
  refreshError,
}: {
  sources: TEvaluationSourceOption[];
  version: string;
  chooseVersion: (v: string) => void;
  canRun: boolean;
  seedControl: TSeedControl;
  view: TEvaluationView | undefined;
  running: boolean;
  error: TControlError | null;
  refreshError: Error | null;
}) {
  const result = view?.result ?? null;
  return (
    <section className="panel flex flex-col gap-2 p-3">
      <div className="flex flex-wrap items-center gap-3">
        <h1 className="text-sm font-semibold">Evaluation · synthetic replay (paper section 8)</h1>
        <SourcePicker sources={sources} value={version} onChange={chooseVersion} />
        {canRun ? (
          <SeedForm {...seedControl} running={running} />
        ) : (
          <span className="muted text-xs">Running an evaluation needs the evaluation.run permission (policy authors, compliance, approvers).</span>
        )}
        <span className="ml-auto">
          <ReplayProgress status={view?.status ?? null} finishedAt={result?.finishedAt ?? null} testId="evaluation-status" />
        </span>
      </div>
      <ControlErrorView error={error} />
      {refreshError ? (
        <p className="text-xs" style={{ color: "var(--bad)" }} role="alert">
          Could not refresh: {refreshError.message}
        </p>
      ) : null}
      <p className="muted text-xs">
        60 simulated minutes × 600 requests per scenario and policy, providers A (primary), B and C in EU 50% / NA 30% / APAC 20%; A degrades from minute 20 to
        40. The factor-list policy is router-core&apos;s decide and controller running the chosen list; static primary, conventional failover and circuit
        breaker are the paper&apos;s baselines. Runs are deterministic for a list and seed, so a result is kept until the list or the seed changes.
      </p>
      {result && (result.providerMap.length > 0 || result.adaptations.length > 0) ? (
        <p className="text-xs" data-testid="evaluation-mapping">
          <span className="muted">Providers mapped onto the scenarios: </span>
          <span className="mono">{result.providerMap.map((m) => `${m.from} → ${m.to}`).join(" · ") || "none named: A, B, C in catalogue order"}</span>
          {result.adaptations.length > 0 ? <span className="muted"> · not modelled: {result.adaptations.join("; ")}</span> : null}
        </p>
      ) : null}
    </section>
  );
}
