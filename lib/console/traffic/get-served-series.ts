import "server-only";
import { getPrisma } from "@/lib/db";
import { countDecisions } from "@/lib/dataplane";
import { consoleClickHouseReads, consoleDecisionCounter } from "@/lib/decision-store";
import { prismaQueryable } from "../prisma-queryable";
import { RANGES, type TRangeKey } from "../ranges";
import type { TServedSeries } from "../types";

/** Decisions per bucket and selected provider (null: none selected), from the rollup when buckets are whole minutes. */
async function countServed(
  operation: string,
  region: string,
  from: number,
  now: number,
  bucketSeconds: number,
): Promise<{ b: number; provider: string | null; n: number }[]> {
  if (bucketSeconds % 60 === 0) {
    const counts = await countDecisions(
      prismaQueryable(),
      {
        operation,
        region,
        from,
        to: now,
        bounds: "(]",
        bucketMs: bucketSeconds * 1000,
        by: ["provider"],
      },
      consoleDecisionCounter(),
    );
    return counts.map((c) => ({ b: c.t, provider: c.provider ?? null, n: c.n }));
  }
  const clickHouse = consoleClickHouseReads();
  if (clickHouse) {
    const q = { operation, region, from, to: now, bounds: "(]", bucketMs: bucketSeconds * 1000, by: ["provider"] } as const;
    const counts = await clickHouse.count(q, [{ from, to: now, fromIncluded: false, toIncluded: true }]);
    return counts.map((c) => ({ b: c.t, provider: c.provider ?? null, n: c.n }));
  }
  // Sub-minute buckets (the 15 min and 1 h charts) need the rows; their ranges are short.
  const rows = await getPrisma().$queryRaw<{ b: Date; provider: string | null; n: bigint }[]>`
    select date_bin(${`${bucketSeconds} seconds`}::interval, created_at, ${new Date(0)}::timestamptz) as b, selected_provider as provider, count(*) as n
      from decision
     where operation = ${operation} and region = ${region} and created_at > ${new Date(from)} and created_at <= ${new Date(now)}
     group by 1, 2
     order by 1`;
  return rows.map((r) => ({ b: r.b.getTime(), provider: r.provider, n: Number(r.n) }));
}

/**
 * Where traffic really went: decisions per provider per bucket, counted from the decision log
 * (its rollups for the 24 h and 7 d ranges, whose buckets are whole minutes: 10-minute and hour cells; the rows
 * for the shorter ones). Every instance writes to the same tables, so this is the merged view,
 * and it counts every decision, those clients made locally included (their count reports). The
 * controller's planned shares can differ (an open breaker or a pin overrides the plan at decide
 * time); decisions without a provider (refused, no eligible provider) count in `total` only, so
 * shares are of served decisions.
 */
export async function getServedSeries(operation: string, region: string, range: TRangeKey, now = Date.now()): Promise<TServedSeries> {
  const { ms, bucketSeconds } = RANGES[range];
  const from = now - ms;
  const bucketMs = bucketSeconds * 1000;
  const rows = await countServed(operation, region, from, now, bucketSeconds);
  const byBucket = new Map<number, { t: number; counts: Record<string, number>; served: number; unserved: number }>();
  const providers = new Set<string>();
  for (const r of rows) {
    const t = Math.floor(r.b / bucketMs) * bucketMs;
    const point = byBucket.get(t) ?? { t, counts: {}, served: 0, unserved: 0 };
    const n = r.n;
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
