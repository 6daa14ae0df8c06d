import "server-only";
import { metricAgeSecondsAt, type TCandidateRecord, type TDecisionRecord } from "@/router-core/index";
import { getPrisma } from "@/lib/db";
import { consoleClickHouseReads, type ClickHouseReads } from "@/lib/decision-store/index";
import { toRecordView, type TDecisionRecordView } from "./decision-record-view";

export type TCallOutcome = {
  at: number;
  provider: string;
  status: string;
  errorClass: string | null;
  httpStatus: number | null;
  latencyMs: number;
  retryCount: number;
  /** Execute mode's failed attempts: the transport's cause (code, address, blocked address, redirect host), which the data-plane caller is not told. */
  detail: string | null;
  /** Who reported it; null for an outcome stored before reporters were. */
  reporter: TDecisionCaller | null;
};
export type TBusinessOutcome = {
  at: number;
  provider: string | null;
  completed: boolean;
  failureStage: string | null;
  withinSla: boolean;
  reporter: TDecisionCaller | null;
};

/** The key a decision was asked with: its prefix and name for a governance key, else the principal (bootstrap key, demo). */
export type TDecisionCaller = { id: string; prefix: string | null; name: string | null; revoked: boolean };

export type TDecisionDetail = {
  record: TDecisionRecordView;
  /** Null for a decision logged before callers were recorded. */
  caller: TDecisionCaller | null;
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
  const clickHouse = consoleClickHouseReads();
  const logged = clickHouse ? await fromClickHouse(clickHouse, id) : await fromPostgres(id, near);
  if (!logged) return null;
  const { row, record } = logged;
  const { calls, outcomes } = clickHouse ? await outcomesFromClickHouse(clickHouse, id) : await outcomesFromPostgres(id);
  const callers = await callersOf([row.apiKeyId, ...calls.map((c) => c.apiKeyId), ...outcomes.map((o) => o.apiKeyId)]);
  const caller = (id: string | null) => (id === null ? null : callers.get(id)!);
  return {
    record: toRecordView(record, {
      id: row.id,
      createdAt: row.createdAt.getTime(),
      operation: row.operation,
      region: row.region,
      requestId: row.requestId,
    }),
    caller: caller(row.apiKeyId),
    createdAt: row.createdAt.getTime(),
    degraded: row.degraded,
    durability: row.durability,
    instanceId: row.instanceId,
    calls: calls.map(({ apiKeyId, ...c }) => ({ ...c, reporter: caller(apiKeyId) })),
    outcomes: outcomes.map(({ apiKeyId, ...o }) => ({ ...o, reporter: caller(apiKeyId) })),
  };
}

/** A decision's outcomes before their reporters are resolved. */
type TOutcomesOf = {
  calls: (Omit<TCallOutcome, "reporter"> & { apiKeyId: string | null })[];
  outcomes: (Omit<TBusinessOutcome, "reporter"> & { apiKeyId: string | null })[];
};

async function outcomesFromPostgres(id: string): Promise<TOutcomesOf> {
  const prisma = getPrisma();
  const [calls, outcomes] = await Promise.all([
    prisma.providerCallOutcome.findMany({ where: { decisionId: id }, orderBy: { reportedAt: "asc" } }),
    prisma.businessOutcome.findMany({ where: { decisionId: id }, orderBy: { reportedAt: "asc" } }),
  ]);
  return {
    calls: calls.map((c) => ({
      at: c.reportedAt.getTime(),
      provider: c.providerKey,
      status: c.status,
      errorClass: c.errorClass,
      httpStatus: c.httpStatus,
      latencyMs: c.latencyMs,
      retryCount: c.retryCount,
      detail: c.detail,
      apiKeyId: c.apiKeyId,
    })),
    outcomes: outcomes.map((o) => ({
      at: o.reportedAt.getTime(),
      provider: o.providerKey,
      completed: o.completed,
      failureStage: o.failureStage,
      withinSla: o.withinSla,
      apiKeyId: o.apiKeyId,
    })),
  };
}

/** ClickHouse mode keeps outcomes beside their decisions. */
async function outcomesFromClickHouse(reads: ClickHouseReads, id: string): Promise<TOutcomesOf> {
  const out: TOutcomesOf = { calls: [], outcomes: [] };
  for (const o of await reads.outcomes.list(id)) {
    if (o.kind === "call") {
      const { kind: _call, ...call } = o;
      out.calls.push(call);
    } else {
      const { kind: _business, ...business } = o;
      out.outcomes.push(business);
    }
  }
  return out;
}

/** The decision row the drilldown shows, and its record as decide answered it. */
type TLoggedDecision = {
  row: {
    id: string;
    createdAt: Date;
    operation: string;
    region: string;
    requestId: string;
    apiKeyId: string | null;
    degraded: boolean;
    durability: string;
    instanceId: string;
  };
  record: TDecisionRecord;
};

async function fromPostgres(id: string, near: number | undefined): Promise<TLoggedDecision | null> {
  const prisma = getPrisma();
  const window = near !== undefined && Number.isFinite(near) ? { gte: new Date(near - 86_400_000), lte: new Date(near + 86_400_000) } : undefined;
  const row = await prisma.decision.findFirst({ where: { id, ...(window ? { createdAt: window } : {}) }, omit: { record: true } });
  if (!row) return null;
  // The record as decide answered it: decision_record_text() puts back the candidate list that
  // decisions sharing it store once (decision_candidates).
  const stored = await prisma.$queryRaw<{ record: TDecisionRecord }[]>`
    select decision_record_text(record, candidates_id, created_at)::json as record
      from decision where id = ${id}::uuid and created_at = ${row.createdAt.toISOString()}::timestamptz`;
  return { row, record: stored[0]!.record };
}

/** ClickHouse mode: the row carries its whole record; the id's UUIDv7 time finds its day. */
async function fromClickHouse(reads: ClickHouseReads, id: string): Promise<TLoggedDecision | null> {
  const r = await reads.get(id);
  if (!r) return null;
  return {
    row: {
      id: r.id,
      createdAt: new Date(r.at),
      operation: r.operation,
      region: r.region,
      requestId: r.requestId,
      apiKeyId: r.apiKeyId,
      degraded: r.degraded,
      durability: r.durability,
      instanceId: r.instanceId,
    },
    record: JSON.parse(r.record) as TDecisionRecord,
  };
}

/** The API keys behind principal ids, in one query (env:SWITCHYARD_API_KEY and anonymous are not keys). */
async function callersOf(ids: readonly (string | null)[]): Promise<Map<string, TDecisionCaller>> {
  const distinct = [...new Set(ids.filter((id): id is string => id !== null))];
  const uuids = distinct.filter((id) => /^[0-9a-f-]{36}$/i.test(id));
  const keys = uuids.length > 0 ? await getPrisma().apiKey.findMany({ where: { id: { in: uuids } } }) : [];
  const byId = new Map(keys.map((k) => [k.id, k]));
  return new Map(
    distinct.map((id) => {
      const k = byId.get(id);
      return [id, { id, prefix: k?.prefix ?? null, name: k?.name ?? null, revoked: k?.revokedAt != null }];
    }),
  );
}

/**
 * A candidate's metric age at the decision, in seconds: the record carries the time of the
 * candidate's newest metrics (metricsAt); records logged before it did carry the age itself.
 */
export function candidateMetricAgeSeconds(record: Pick<TDecisionRecord, "at">, c: TCandidateRecord): number | null {
  if (c.metricsAt != null) return metricAgeSecondsAt(c.metricsAt, record.at);
  const logged = (c as { metricAgeSeconds?: unknown }).metricAgeSeconds;
  return typeof logged === "number" ? logged : null;
}
