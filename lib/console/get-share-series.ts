import "server-only";
import { getPrisma } from "@/lib/db/client";
import { RANGES, type TRangeKey } from "./ranges";
import type { TShareSeries, TShares } from "./types";

/**
 * Traffic shares per provider over a range, bucketed in Postgres: the last controller sample in
 * each bucket (shares are a state, so the last one is what held at the bucket's end). The index
 * on (operation_key, region, at) bounds the scan to the range.
 */
export async function getShareSeries(operation: string, region: string, range: TRangeKey, now = Date.now()): Promise<TShareSeries> {
  const { ms, bucketSeconds } = RANGES[range];
  const from = now - ms;
  const rows = await getPrisma().$queryRaw<{ b: bigint; shares: TShares }[]>`
    select (floor(extract(epoch from at) / ${bucketSeconds}) * ${bucketSeconds})::bigint as b,
           (array_agg(shares order by at desc))[1] as shares
      from traffic_share_sample
     where operation_key = ${operation} and region = ${region}
       and at > ${new Date(from)} and at <= ${new Date(now)}
     group by 1 order by 1`;
  const providers = new Set<string>();
  const points = rows.map((r) => {
    for (const p of Object.keys(r.shares)) providers.add(p);
    return { t: Number(r.b) * 1000, shares: r.shares };
  });
  return { providers: [...providers].sort(), points, from, to: now, bucketSeconds };
}
