import "server-only";
import { HISTOGRAM_BUCKETS, type TMetricBucket } from "@/router-core/index";
import { getPrisma } from "@/lib/db/client";

type TRow = {
  provider_key: string;
  operation_key: string;
  region: string;
  start: bigint;
  width_ms: number;
  calls: bigint;
  call_failures: bigint;
  latency_counts: bigint[];
  completions: bigint;
  failures_before_provider: bigint;
  failures_provider_call: bigint;
  failures_user_action: bigint;
  failures_downstream_app: bigint;
  failures_unknown: bigint;
  incidents: bigint;
  last_event_at: bigint;
};

/** Buckets are a minute wide; reading one width early catches the bucket straddling `from` (inWindow trims exactly). */
const OVERLAP_MS = 60_000;

/**
 * Merged metric buckets of one operation overlapping [from, to], as router-core buckets, so the
 * console summarises them with the same summarizeBuckets the router scores with.
 */
export async function readMetricBuckets(operation: string, from: number, to: number): Promise<TMetricBucket[]> {
  const rows = await getPrisma().$queryRaw<TRow[]>`
    select provider_key, operation_key, region, round(extract(epoch from bucket_start) * 1000)::bigint as start, width_ms,
           calls, call_failures, latency_counts, completions, failures_before_provider, failures_provider_call,
           failures_user_action, failures_downstream_app, failures_unknown, incidents, last_event_at
      from metric_bucket
     where operation_key = ${operation}
       and bucket_start > ${new Date(from - OVERLAP_MS)} and bucket_start <= ${new Date(to)}`;
  return rows
    .filter((r) => r.latency_counts.length === HISTOGRAM_BUCKETS)
    .map((r) => ({
      provider: r.provider_key,
      operation: r.operation_key,
      region: r.region,
      start: Number(r.start),
      widthMs: r.width_ms,
      calls: Number(r.calls),
      callFailures: Number(r.call_failures),
      latency: { counts: r.latency_counts.map(Number) },
      completions: Number(r.completions),
      failuresByStage: {
        before_provider: Number(r.failures_before_provider),
        provider_call: Number(r.failures_provider_call),
        user_action: Number(r.failures_user_action),
        downstream_app: Number(r.failures_downstream_app),
        unknown: Number(r.failures_unknown),
      },
      incidents: Number(r.incidents),
      lastEventAt: Number(r.last_event_at),
    }));
}
