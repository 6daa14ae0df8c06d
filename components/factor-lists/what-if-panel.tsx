"use client";

import { useQuery, useQueryClient } from "@tanstack/react-query";
import { useState } from "react";
import type { TWhatIfView } from "@/lib/console/evaluation/evaluation-types";
import { fetchJson } from "../fetch-json";
import { ControlErrorView } from "../providers/control-error";
import { controlRequest, type TControlError } from "../providers/control-request";
import { ReplayProgress } from "../replay/replay-progress";
import { WhatIfResult } from "./what-if-result";

const HOURS = [1, 3, 6] as const;
const BODY_MIN_HEIGHT = 330;

/** The what-if for these inputs, polled while it runs, and (for those who may) the request that starts it. */
function useWhatIf(versionId: string, hours: (typeof HOURS)[number], canRun: boolean) {
  const client = useQueryClient();
  const query = useQuery({
    queryKey: ["what-if", versionId, hours],
    queryFn: () => fetchJson<TWhatIfView>(`/api/console/what-if?${new URLSearchParams({ version: versionId, hours: String(hours) })}`),
    // Also polls while a run is expected but not yet visible: a GET sent before the start POST
    // can answer after it and overwrite the queued status with "nothing yet", which would
    // otherwise stop the polling for good.
    refetchInterval: (q) => {
      const d = q.state.data;
      if (d?.status?.state === "running" || d?.status?.state === "queued") return 1_000;
      return canRun && !d?.result && !d?.unavailable && d?.status?.state !== "failed" ? 1_000 : false;
    },
  });
  // Opening the page (or choosing other hours) asks for the run; the same inputs within 5 minutes get the same job.
  const start = useQuery({
    queryKey: ["what-if-start", versionId, hours],
    queryFn: async () => {
      const res = await controlRequest<TWhatIfView>("/api/console/what-if", "POST", { version: versionId, hours });
      if (!res.ok) throw Object.assign(new Error(res.error.message), { control: res.error });
      client.setQueryData(["what-if", versionId, hours], res.value);
      return res.value;
    },
    enabled: canRun,
    // Asks again while the page knows of no run, no result and no reason: the replayed range
    // moves on every 5 minutes, and a page left open past that would otherwise wait for good.
    refetchInterval: () => (query.data && !query.data.status && !query.data.result && !query.data.unavailable ? 15_000 : false),
    staleTime: 300_000,
    retry: false,
  });
  const error: TControlError | null = start.error ? ((start.error as Error & { control?: TControlError }).control ?? null) : null;
  return { query, error };
}

/**
 * The approval page's what-if: this version replayed (router-core's decide and controller, on a
 * worker thread) over the operation's recorded traffic of the last hours, next to what the
 * active version actually did. Someone who may run replays starts it by opening the page; the
 * result is shared with everyone who opens it within the same 5 minutes.
 */
export function WhatIfPanel({ versionId, operation, canRun }: { versionId: string; operation: string; canRun: boolean }) {
  const [hours, setHours] = useState<(typeof HOURS)[number]>(3);
  const { query, error } = useWhatIf(versionId, hours, canRun);

  const view = query.data;
  const result = view?.result ?? null;
  const running = view?.status?.state === "running" || view?.status?.state === "queued";
  return (
    <section className="panel" aria-label="What-if replay" data-testid="what-if">
      <div className="panel-title flex flex-wrap items-center gap-3">
        <span>
          What-if · this version over the last recorded <span className="mono">{operation}</span> traffic, next to what happened
        </span>
        <span className="flex gap-1 font-normal" role="group" aria-label="Hours of recorded traffic">
          {HOURS.map((h) => (
            <button key={h} type="button" className="btn" aria-pressed={h === hours} onClick={() => setHours(h)}>
              {h} h
            </button>
          ))}
        </span>
        <span className="ml-auto font-normal">
          <ReplayProgress status={view?.status ?? null} finishedAt={result?.finishedAt ?? null} testId="what-if-status" />
        </span>
      </div>
      <div className="px-3 pb-3" style={{ minHeight: BODY_MIN_HEIGHT }}>
        <ControlErrorView error={error} />
        {query.isError ? (
          <p className="text-xs" style={{ color: "var(--bad)" }} role="alert">
            Could not load the what-if: {query.error.message}
          </p>
        ) : null}
        {view?.unavailable ? (
          <p className="muted py-6 text-center text-sm" data-testid="what-if-unavailable">
            No what-if: {view.unavailable}.
          </p>
        ) : !result ? (
          <p className="muted py-6 text-center text-sm" data-testid="what-if-empty">
            {query.isPending
              ? "Loading…"
              : running
                ? "Replaying the recorded traffic on a worker thread…"
                : view?.status?.state === "failed"
                  ? `The replay failed: ${view.status.error}`
                  : canRun
                    ? "Starting the replay…"
                    : "Not computed yet: it runs when a policy author, compliance or an approver opens this page."}
          </p>
        ) : (
          <WhatIfResult result={result} />
        )}
      </div>
    </section>
  );
}
