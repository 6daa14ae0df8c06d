import "server-only";
import { getPrisma } from "@/lib/db";
import { consoleClickHouseReads } from "@/lib/decision-store";

export type TDisagreementGroup = { region: string; actual: string | null; shadow: string | null; count: number; lastAt: number };

/** The most groups listed: a shadow version that disagrees in more ways than this is shown by its largest. */
const GROUP_LIMIT = 50;

/**
 * Disagreements between the live and the shadow version of an operation in [from, to], grouped by
 * region and provider pair (actual pick → shadow pick), largest first: a hundred near-identical rows
 * read as one line with its count. Read from the decision rows, which hold every disagreement
 * (clients deciding locally send a full record for each).
 */
export async function getShadowDisagreementGroups(operation: string, from: number, to: number): Promise<TDisagreementGroup[]> {
  const clickHouse = consoleClickHouseReads();
  if (clickHouse) return clickHouse.disagreementGroups(operation, from, to, GROUP_LIMIT);
  const rows = await getPrisma().$queryRaw<{ region: string; actual: string | null; shadow: string | null; n: bigint; last_at: Date }[]>`
    select region, selected_provider as actual, shadow_pick as shadow, count(*) as n, max(created_at) as last_at
    from decision
    where operation = ${operation} and created_at >= ${new Date(from)} and created_at <= ${new Date(to)} and shadow_agrees = false
    group by region, selected_provider, shadow_pick
    order by n desc, region, actual, shadow
    limit ${GROUP_LIMIT}`;
  return rows.map((r) => ({ region: r.region, actual: r.actual, shadow: r.shadow, count: Number(r.n), lastAt: r.last_at.getTime() }));
}
