import "server-only";
import { getPrisma } from "@/lib/db";
import { RANGES, type TRangeKey } from "../ranges";
import type { TShareSeries, TShares } from "../types";

/**
 * Traffic shares per provider over a range: the last controller sample in each bucket (shares are
 * a state, so the last one is what held at the bucket's end). One backward probe of the
 * (operation_key, region, at) index per bucket instead of reading every sample in the range: the
 * leader writes a sample per tick (every 5 s), so 7 days are 120,000 samples per (operation,
 * region) but only 168 buckets (measured on a seeded week: about 600 ms for the aggregate, a few
 * ms for the probes).
 */
export async function getShareSeries(operation: string, region: string, range: TRangeKey, now = Date.now()): Promise<TShareSeries> {
  const { ms, bucketSeconds } = RANGES[range];
  const from = now - ms;
  const bucketMs = bucketSeconds * 1000;
  const first = Math.floor(from / bucketMs) * bucketMs;
  const last = Math.floor(now / bucketMs) * bucketMs;
  const rows = await getPrisma().$queryRaw<{ b: bigint; shares: TShares }[]>`
    select (extract(epoch from b.start))::bigint as b, s.shares
      from generate_series(${new Date(first)}::timestamptz, ${new Date(last)}::timestamptz, ${`${bucketSeconds} seconds`}::interval) as b(start)
     cross join lateral (
       select shares from traffic_share_sample
        where operation_key = ${operation} and region = ${region}
          and at >= b.start and at < b.start + ${`${bucketSeconds} seconds`}::interval
          and at > ${new Date(from)} and at <= ${new Date(now)}
        order by at desc limit 1) s
     order by 1`;
  const providers = new Set<string>();
  const points = rows.map((r) => {
    for (const p of Object.keys(r.shares)) providers.add(p);
    return { t: Number(r.b) * 1000, shares: r.shares };
  });
  return { providers: [...providers].sort(), points, from, to: now, bucketSeconds };
}
