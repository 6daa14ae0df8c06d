import "server-only";
import { getPrisma } from "@/lib/db/client";
import { RANGES, type TRangeKey } from "./ranges";
import type { TServedSeries } from "./types";

/**
 * Where traffic really went: decisions per provider per bucket, counted from the decision log.
 * Every instance writes to the same table, so this is the merged view; the controller's planned
 * shares can differ (an open breaker or a pin overrides the plan at decide time). Bounded by the
 * range and served by the (operation, region, created_at) index; decisions without a provider
 * (refused, no eligible provider) count in `total` only, so shares are of served decisions.
 */
export async function getServedSeries(operation: string, region: string, range: TRangeKey, now = Date.now()): Promise<TServedSeries> {
  const { ms, bucketSeconds } = RANGES[range];
  const from = now - ms;
  const bucketMs = bucketSeconds * 1000;
  const origin = new Date(0);
  const rows = await getPrisma().$queryRaw<{ b: Date; provider: string | null; n: bigint }[]>`
    select date_bin(${`${bucketSeconds} seconds`}::interval, created_at, ${origin}::timestamptz) as b, selected_provider as provider, count(*) as n
      from decision
     where operation = ${operation} and region = ${region} and created_at > ${new Date(from)} and created_at <= ${new Date(now)}
     group by 1, 2
     order by 1`;
  const byBucket = new Map<number, { t: number; counts: Record<string, number>; served: number; unserved: number }>();
  const providers = new Set<string>();
  for (const r of rows) {
    const t = Math.floor(r.b.getTime() / bucketMs) * bucketMs;
    const point = byBucket.get(t) ?? { t, counts: {}, served: 0, unserved: 0 };
    const n = Number(r.n);
    if (r.provider === null) point.unserved += n;
    else {
      providers.add(r.provider);
      point.counts[r.provider] = (point.counts[r.provider] ?? 0) + n;
      point.served += n;
    }
    byBucket.set(t, point);
  }
  return { providers: [...providers].sort(), points: [...byBucket.values()].sort((a, b) => a.t - b.t), from, to: now, bucketSeconds };
}
