"use client";

import { useQuery, useQueryClient } from "@tanstack/react-query";
import { useState } from "react";
import type { TEvaluationSourceOption, TEvaluationView } from "@/lib/console/evaluation/evaluation-types";
import { fetchJson } from "../fetch-json";
import { controlRequest, type TControlError } from "../providers/control-request";
import { EvaluationHeader } from "./evaluation-controls";
import { EvaluationEmpty, EvaluationResults, type TSelection } from "./evaluation-results";

const syncUrl = (v: string, s: TSelection) => window.history.replaceState(null, "", `/evaluation?${new URLSearchParams({ version: v, ...s })}`);

/** The seed field, checked as typed, and the run it starts for `version`. */
function useSeedRun(version: string, initialSeed: number, setError: (e: TControlError | null) => void) {
  const [seed, setSeed] = useState(String(initialSeed));
  const [busy, setBusy] = useState(false);
  const client = useQueryClient();
  const seedNumber = Number(seed);
  const seedError =
    seed.trim() === "" || !Number.isInteger(seedNumber) || seedNumber < 0 || seedNumber > 2_147_483_647 ? "seed must be an integer from 0 to 2147483647" : null;
  const run = async () => {
    if (seedError) return;
    setBusy(true);
    setError(null);
    const res = await controlRequest<TEvaluationView>("/api/console/evaluation", "POST", { version, seed: seedNumber });
    setBusy(false);
    if (!res.ok) return setError(res.error);
    client.setQueryData(["evaluation", version], res.value);
  };
  return { seed, setSeed, seedError, busy, run: () => void run() };
}

export function EvaluationView({
  sources,
  initial,
  canRun,
  initialSelection,
}: {
  sources: TEvaluationSourceOption[];
  initial: TEvaluationView;
  canRun: boolean;
  initialSelection: TSelection;
}) {
  const [version, setVersion] = useState(initial.source.key);
  const [selection, setSelection] = useState<TSelection>(initialSelection);
  const [error, setError] = useState<TControlError | null>(null);
  const seedControl = useSeedRun(version, initial.result?.seed ?? initial.defaultSeed, setError);
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
  const chooseVersion = (v: string) => {
    setVersion(v);
    setError(null);
    syncUrl(v, selection);
  };
  const choose = (s: TSelection) => {
    setSelection(s);
    syncUrl(version, s);
  };
  return (
    <div className="flex flex-col gap-4" data-testid="evaluation">
      <EvaluationHeader
        sources={sources}
        version={version}
        chooseVersion={chooseVersion}
        canRun={canRun}
        seedControl={seedControl}
        view={view}
        running={running}
        error={error}
        refreshError={query.isError ? query.error : null}
      />
      {!result ? (
        <EvaluationEmpty view={view} running={running} canRun={canRun} />
      ) : (
        <EvaluationResults view={view} result={result} version={version} selection={selection} choose={choose} />
      )}
    </div>
  );
}
