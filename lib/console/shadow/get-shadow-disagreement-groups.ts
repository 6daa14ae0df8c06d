import "server-only";
import { countDecisions, countDisagreementGroups } from "@/lib/dataplane";
import { prismaQueryable } from "../prisma-queryable";
import { consoleClickHouseReads, consoleDecisionCounter } from "@/lib/decision-store";

export type TDisagreementGroup = { region: string; actual: string | null; shadow: string | null; count: number; lastAt: number };

/** The most groups listed: a shadow version that disagrees in more ways than this is shown by its largest. */
const GROUP_LIMIT = 50;

/**
 * Disagreements between the live and the shadow version of an operation in [from, to], grouped by
 * region and provider pair (actual pick → shadow pick), largest first: a hundred near-identical rows
 * read as one line with its count. Counted from the decision log's rollups (hour cells, minute ones at the ends) (every
 * decision, clients' local ones too, by their count reports), as the agreement series is.
 */
export async function getShadowDisagreementGroups(operation: string, from: number, to: number): Promise<TDisagreementGroup[]> {
  const clickHouse = consoleClickHouseReads();
  if (!clickHouse) return countDisagreementGroups(prismaQueryable(), { operation, from, to, limit: GROUP_LIMIT });
  // ClickHouse mode: the counts from the same rollups (ClickHouse's rows only for the partial
  // minutes at the ends), so a week costs its hours, not its rows; then each listed group's last time.
  const counts = await countDecisions(
    prismaQueryable(),
    { operation, from, to, bounds: "[]", bucketMs: DAY_MS, by: ["region", "provider", "shadow", "shadowPick"], shadowed: true },
    consoleDecisionCounter(),
  );
  const sums = new Map<string, Omit<TDisagreementGroup, "lastAt">>();
  for (const c of counts) {
    if (c.shadow !== "disagree") continue;
    const key = groupKey(c.region!, c.provider ?? null, c.shadowPick ?? null);
    const found = sums.get(key);
    if (found) found.count += c.n;
    else sums.set(key, { region: c.region!, actual: c.provider ?? null, shadow: c.shadowPick ?? null, count: c.n });
  }
  const top = [...sums.values()].sort(byCountThenKey).slice(0, GROUP_LIMIT);
  const last = await clickHouse.lastDisagreements(operation, from, to, top);
  // Every counted group has rows in the range: the console reads ranges well inside the retention.
  return top.map((g) => ({ ...g, lastAt: last.get(groupKey(g.region, g.actual, g.shadow)) ?? to }));
}

const DAY_MS = 86_400_000;

const groupKey = (region: string, actual: string | null, shadow: string | null) => `${region}|${actual ?? ""}|${shadow ?? ""}`;

/** Largest first, then region, actual and shadow pick as Postgres orders them (none last). */
function byCountThenKey(a: Omit<TDisagreementGroup, "lastAt">, b: Omit<TDisagreementGroup, "lastAt">): number {
  const text = (x: string | null, y: string | null) => (x === y ? 0 : x === null ? 1 : y === null ? -1 : x < y ? -1 : 1);
  return b.count - a.count || text(a.region, b.region) || text(a.actual, b.actual) || text(a.shadow, b.shadow);
}
