import "server-only";
import { ZQuota } from "@/lib/catalog";
import { quotaWindowStart } from "@/lib/dataplane";
import { getPrisma } from "@/lib/db";

export type TQuotaWindowRow = {
  provider: string;
  unit: "requests" | "tokens";
  limit: number;
  windowSeconds: number;
  windowStart: number;
  windowEnd: number;
  /** Calls or tokens the instances leased in this window (provider_quota_window.used): what they spent is at most this. */
  leased: number;
  /** Instances that leased in the window. */
  holders: number;
  /** fully_leased: nothing left to lease until the window ends; instances spend the blocks they hold, then the gate fails. */
  state: "available" | "fully_leased";
};

export type TThrottleRow = { provider: string; until: number; instance: string };

/**
 * The providers page's quota panel: each catalogued quota's current window as the cluster counts
 * it (provider_quota_window, the table every instance leases from), and the 429 throttles in
 * force (provider_throttle). Both are what the quota_available gate reads, merged.
 */
export async function getQuotaView(now = Date.now()): Promise<{ windows: TQuotaWindowRow[]; throttles: TThrottleRow[] }> {
  const prisma = getPrisma();
  const [providers, leasedRows, throttles] = await Promise.all([
    prisma.provider.findMany({ select: { key: true, quotas: true }, orderBy: { key: "asc" } }),
    prisma.providerQuotaWindow.findMany({ where: { windowStart: { gt: new Date(now - 31 * 86_400_000) } } }),
    prisma.providerThrottle.findMany({ where: { throttledUntilMs: { gt: now } }, orderBy: { providerKey: "asc" } }),
  ]);
  const leased = new Map(leasedRows.map((r) => [`${r.providerKey}|${r.unit}|${r.windowSeconds}|${r.windowStart.getTime()}`, r]));
  const windows: TQuotaWindowRow[] = [];
  for (const p of providers) {
    const parsed = ZQuota.array().safeParse(p.quotas);
    if (!parsed.success) continue;
    for (const q of parsed.data) {
      const windowStart = quotaWindowStart(q.windowSeconds, now);
      const row = leased.get(`${p.key}|${q.unit}|${q.windowSeconds}|${windowStart}`);
      const used = row ? Number(row.used) : 0;
      windows.push({
        provider: p.key,
        unit: q.unit,
        limit: q.limit,
        windowSeconds: q.windowSeconds,
        windowStart,
        windowEnd: windowStart + q.windowSeconds * 1000,
        leased: used,
        holders: row?.holders.length ?? 0,
        state: used >= q.limit ? "fully_leased" : "available",
      });
    }
  }
  return { windows, throttles: throttles.map((t) => ({ provider: t.providerKey, until: t.throttledUntilMs, instance: t.instanceId })) };
}
