import "server-only";
import { HISTOGRAM_BUCKETS, type TMetricBucket } from "@/router-core/index";
import { bucketFromRow, type TBucketRow } from "@/lib/dataplane";
import { getPrisma } from "@/lib/db";

/** Buckets are a minute wide; reading one width early catches the bucket straddling `from` (inWindow trims exactly). */
const OVERLAP_MS = 60_000;

/**
 * Merged metric buckets of one operation overlapping [from, to], as router-core buckets, so the
 * console summarises them with the same summarizeBuckets the router scores with.
 */
export async function readMetricBuckets(operation: string, from: number, to: number): Promise<TMetricBucket[]> {
  const rows = await getPrisma().$queryRaw<TBucketRow[]>`
    select provider_key, operation_key, region, round(extract(epoch from bucket_start) * 1000)::bigint as start, width_ms,
           calls, call_failures, latency_counts, completions, failures_before_provider, failures_provider_call,
           failures_user_action, failures_downstream_app, failures_unknown, incidents, last_event_at
      from metric_bucket
     where operation_key = ${operation}
       and bucket_start > ${new Date(from - OVERLAP_MS)} and bucket_start <= ${new Date(to)}`;
  return rows.filter((r) => r.latency_counts.length === HISTOGRAM_BUCKETS).map(bucketFromRow);
}
