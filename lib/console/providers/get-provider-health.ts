import "server-only";
import { summarizeBuckets, type TMetricBucket } from "@/router-core/index";
import { getPrisma } from "@/lib/db";
import { listBreakerStates, type TBreakerStatus } from "./list-breaker-states";
import { readMetricBuckets } from "./read-metric-buckets";
import type { TProviderHealth } from "../types";

/**
 * Health per (provider, region) for one operation over the policy's metric window: completion
 * and p95 from the merged buckets through router-core's summarizeBuckets (the numbers the router
 * scores with), the controller's current share, and the breaker state (a region's own breaker
 * wins over a provider-wide one, as in routing).
 */
export type THealthContext = { breakers: TBreakerStatus[]; providers: { key: string; supportedRegions: string[] }[] };

/** What every operation's health reads alike: one read for a page showing several operations. */
export async function loadHealthContext(): Promise<THealthContext> {
  const [breakers, providers] = await Promise.all([
    listBreakerStates(),
    getPrisma().provider.findMany({ select: { key: true, supportedRegions: true }, orderBy: { key: "asc" } }),
  ]);
  return { breakers, providers };
}

export async function getProviderHealth(opts: {
  operation: string;
  region?: string;
  windowMinutes: number;
  minSampleSize: number;
  now?: number;
  context?: THealthContext;
}): Promise<TProviderHealth[]> {
  const now = opts.now ?? Date.now();
  const prisma = getPrisma();
  const [buckets, shares, { breakers, providers }] = await Promise.all([
    readMetricBuckets(opts.operation, now - opts.windowMinutes * 60_000, now),
    prisma.trafficShare.findMany({ where: { operationKey: opts.operation, ...(opts.region ? { region: opts.region } : {}) } }),
    opts.context ?? loadHealthContext(),
  ]);
  const byKey = new Map<string, TMetricBucket[]>();
  for (const b of buckets) {
    const k = `${b.provider}|${b.region}`;
    const list = byKey.get(k);
    if (list) list.push(b);
    else byKey.set(k, [b]);
  }
  const breakerOf = (provider: string, region: string): TBreakerStatus | undefined =>
    breakers.find((b) => b.provider === provider && b.region === region) ?? breakers.find((b) => b.provider === provider && b.region === null);
  const out: TProviderHealth[] = [];
  for (const p of providers) {
    for (const region of p.supportedRegions) {
      if (opts.region && region !== opts.region) continue;
      const snap = summarizeBuckets(byKey.get(`${p.key}|${region}`) ?? [], { now, windowMinutes: opts.windowMinutes, minSampleSize: opts.minSampleSize });
      const breaker = breakerOf(p.key, region);
      out.push({
        provider: p.key,
        region,
        completionRate: snap.completionRate,
        p95Ms: snap.p95Ms,
        samples: snap.sampleCount,
        share: shares.find((s) => s.providerKey === p.key && s.region === region)?.share ?? null,
        breaker: breaker?.state ?? "closed",
        breakerSince: breaker?.since ?? null,
        breakerReason: breaker ? `${breaker.reason}${breaker.detail ? `: ${breaker.detail}` : ""}` : null,
      });
    }
  }
  return out;
}
