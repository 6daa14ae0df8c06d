import type { TEvaluationResult, TWhatIfReport } from "@/lib/replay";

/**
 * JSON shapes of the evaluation page and the approval page's what-if, shared by the server
 * read models, the /api/console routes and the client components that poll them.
 */
export type TEvaluationSourceOption = {
  /** "listing1" or a factor-list version id. */
  key: string;
  label: string;
  operation: string | null;
  version: number | null;
  status: string | null;
};

export type TReplayStatus = {
  state: "queued" | "running" | "done" | "failed";
  progress: { done: number; total: number; label: string };
  queuePosition: number | null;
  requestedBy: string;
  queuedAt: number;
  startedAt: number | null;
  finishedAt: number | null;
  error: string | null;
  /** The inputs' fingerprint: a trace or result fetched for one run is never shown for another. */
  fingerprint: string;
};

export type TEvaluationSummary = Omit<TEvaluationResult, "traces"> & { finishedAt: number; fingerprint: string };

export type TEvaluationView = {
  source: TEvaluationSourceOption;
  /** The latest job for the source: running, queued, failed or the one that produced `result`. */
  status: TReplayStatus | null;
  /** The last successful evaluation of the source (kept while a newer one runs or after one failed). */
  result: TEvaluationSummary | null;
  defaultSeed: number;
};

export type TWhatIfView = {
  versionId: string;
  operation: string;
  hours: number;
  status: TReplayStatus | null;
  result: (TWhatIfReport & { finishedAt: number; fingerprint: string }) | null;
  /** Why no what-if can run (no recorded traffic, invalid draft), when that is known up front. */
  unavailable: string | null;
};
