import type { TReplayStatus } from "@/lib/console/evaluation/evaluation-types";
import { utc } from "../format";

/**
 * One line for a replay job: queued, running (with a progress bar), failed, or when the shown
 * result was computed. Fixed height, so the page below never jumps as the state changes.
 */
export function ReplayProgress({ status, finishedAt, testId }: { status: TReplayStatus | null; finishedAt: number | null; testId: string }) {
  const running = status?.state === "running" || status?.state === "queued";
  const p = status?.progress;
  const fraction = p && p.total > 0 ? p.done / p.total : 0;
  return (
    <div className="flex h-6 items-center gap-3 text-xs" role="status" aria-live="polite" data-testid={testId} data-state={status?.state ?? "idle"}>
      {running && p ? (
        <>
          <span className="relative inline-block h-2 w-40 overflow-hidden rounded" style={{ background: "var(--border)" }} aria-hidden>
            <span
              className="absolute inset-y-0 left-0"
              style={{ width: `${Math.round(fraction * 100)}%`, background: "var(--accent)", transition: "width 300ms" }}
            />
          </span>
          <span>
            {status.state === "queued" ? `queued${status.queuePosition ? ` (#${status.queuePosition})` : ""}` : `running ${p.done}/${p.total}`} ·{" "}
            <span className="muted">{p.label}</span>
          </span>
        </>
      ) : status?.state === "failed" ? (
        <span style={{ color: "var(--bad)" }} role="alert">
          last run failed: {status.error}
        </span>
      ) : finishedAt !== null ? (
        <span className="muted">
          computed {utc(finishedAt)}
          {status?.startedAt && status.finishedAt ? ` in ${((status.finishedAt - status.startedAt) / 1000).toFixed(1)} s on a worker thread` : ""}
          {status ? ` · requested by ${status.requestedBy}` : ""}
        </span>
      ) : (
        <span className="muted">not computed yet</span>
      )}
    </div>
  );
}
