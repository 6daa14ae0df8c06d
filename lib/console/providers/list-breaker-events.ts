import "server-only";
import { getPrisma } from "@/lib/db";

export type TBreakerEventRow = {
  id: string;
  at: number;
  provider: string;
  region: string | null;
  from: string;
  to: string;
  reason: string;
  detail: string;
  instance: string;
};

/** The latest breaker transitions across providers, newest first. */
export async function listBreakerEvents(limit: number): Promise<TBreakerEventRow[]> {
  const rows = await getPrisma().breakerEvent.findMany({ orderBy: [{ at: "desc" }, { id: "desc" }], take: limit });
  return rows.map((r) => ({
    id: r.id.toString(),
    at: r.at.getTime(),
    provider: r.providerKey,
    region: r.region,
    from: r.fromState,
    to: r.toState,
    reason: r.reason,
    detail: r.detail,
    instance: r.instanceId,
  }));
}
