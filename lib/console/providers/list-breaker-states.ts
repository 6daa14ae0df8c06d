import "server-only";
import { getPrisma } from "@/lib/db";
import type { TBreakerState } from "../types";

export type TBreakerStatus = { provider: string; region: string | null; state: TBreakerState; since: number; reason: string; detail: string };

/**
 * The current state of every breaker that ever moved: its latest transition. A breaker with no
 * transition has never left closed. A null region is a provider-wide breaker.
 */
export async function listBreakerStates(): Promise<TBreakerStatus[]> {
  const rows = await getPrisma().$queryRaw<{ provider_key: string; region: string | null; to_state: string; at: Date; reason: string; detail: string }[]>`
    select distinct on (provider_key, region) provider_key, region, to_state, at, reason, detail
      from breaker_event order by provider_key, region, at desc`;
  return rows.map((r) => ({
    provider: r.provider_key,
    region: r.region,
    state: (r.to_state === "open" || r.to_state === "half_open" ? r.to_state : "closed") as TBreakerState,
    since: r.at.getTime(),
    reason: r.reason,
    detail: r.detail,
  }));
}
