import "server-only";
import { metricAgeSecondsAt, type TCandidateRecord, type TDecisionRecord } from "@/router-core/index";
import { getPrisma } from "@/lib/db/client";

export type TCallOutcome = {
  at: number;
  provider: string;
  status: string;
  errorClass: string | null;
  httpStatus: number | null;
  latencyMs: number;
  retryCount: number;
};
export type TBusinessOutcome = { at: number; provider: string | null; completed: boolean; failureStage: string | null; withinSla: boolean };

export type TDecisionDetail = {
  record: TDecisionRecord;
  createdAt: number;
  degraded: boolean;
  durability: string;
  instanceId: string;
  calls: TCallOutcome[];
  outcomes: TBusinessOutcome[];
};

/**
 * One decision with the outcomes reported for it. The id alone does not name a partition, so
 * the lookup scans each day's primary-key index once; `near` (the time from the log row the
 * user clicked) narrows it to that day.
 */
export async function getDecision(id: string, near?: number): Promise<TDecisionDetail | null> {
  if (!/^[0-9a-f-]{36}$/i.test(id)) return null;
  const prisma = getPrisma();
  const window = near !== undefined && Number.isFinite(near) ? { gte: new Date(near - 86_400_000), lte: new Date(near + 86_400_000) } : undefined;
  const row = await prisma.decision.findFirst({ where: { id, ...(window ? { createdAt: window } : {}) }, omit: { record: true } });
  if (!row) return null;
  const [calls, outcomes, stored] = await Promise.all([
    prisma.providerCallOutcome.findMany({ where: { decisionId: id }, orderBy: { reportedAt: "asc" } }),
    prisma.businessOutcome.findMany({ where: { decisionId: id }, orderBy: { reportedAt: "asc" } }),
    // The record as decide answered it: decision_record_text() puts back the candidate list that
    // decisions sharing it store once (decision_candidates).
    prisma.$queryRaw<{ record: TDecisionRecord }[]>`
      select decision_record_text(record, candidates_id, created_at)::json as record
        from decision where id = ${id}::uuid and created_at = ${row.createdAt.toISOString()}::timestamptz`,
  ]);
  return {
    record: stored[0]!.record,
    createdAt: row.createdAt.getTime(),
    degraded: row.degraded,
    durability: row.durability,
    instanceId: row.instanceId,
    calls: calls.map((c) => ({
      at: c.reportedAt.getTime(),
      provider: c.providerKey,
      status: c.status,
      errorClass: c.errorClass,
      httpStatus: c.httpStatus,
      latencyMs: c.latencyMs,
      retryCount: c.retryCount,
    })),
    outcomes: outcomes.map((o) => ({
      at: o.reportedAt.getTime(),
      provider: o.providerKey,
      completed: o.completed,
      failureStage: o.failureStage,
      withinSla: o.withinSla,
    })),
  };
}

/**
 * A candidate's metric age at the decision, in seconds: the record carries the time of the
 * candidate's newest metrics (metricsAt); records logged before it did carry the age itself.
 */
export function candidateMetricAgeSeconds(record: TDecisionRecord, c: TCandidateRecord): number | null {
  if (c.metricsAt != null) return metricAgeSecondsAt(c.metricsAt, record.at);
  const logged = (c as { metricAgeSeconds?: unknown }).metricAgeSeconds;
  return typeof logged === "number" ? logged : null;
}
