import type { TReplayJob } from "@/lib/replay";
import type { TReplayStatus } from "./evaluation-types";

export function toReplayStatus(job: TReplayJob | null, queuePosition: number | null): TReplayStatus | null {
  if (!job) return null;
  return {
    state: job.state,
    progress: job.progress,
    queuePosition,
    requestedBy: job.requestedBy,
    queuedAt: job.queuedAt,
    startedAt: job.startedAt,
    finishedAt: job.finishedAt,
    error: job.error,
    fingerprint: job.fingerprint,
  };
}
