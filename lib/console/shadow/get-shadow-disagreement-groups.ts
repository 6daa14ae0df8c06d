import "server-only";
import { countDisagreementGroups } from "@/lib/dataplane";
import { prismaQueryable } from "../prisma-queryable";
import { consoleClickHouseReads } from "@/lib/decision-store";

export type TDisagreementGroup = { region: string; actual: string | null; shadow: string | null; count: number; lastAt: number };

/** The most groups listed: a shadow version that disagrees in more ways than this is shown by its largest. */
const GROUP_LIMIT = 50;

/**
 * Disagreements between the live and the shadow version of an operation in [from, to], grouped by
 * region and provider pair (actual pick → shadow pick), largest first: a hundred near-identical rows
 * read as one line with its count. Counted from the decision log's rollups (hour cells, minute ones at the ends) (every
 * decision, clients' local ones too, by their count reports), as the agreement series is, in both stores.
 */
export async function getShadowDisagreementGroups(operation: string, from: number, to: number): Promise<TDisagreementGroup[]> {
  // ClickHouse mode keeps the same rollups in Postgres: only the partial minutes at the ends and
  // each group's last minute are read from ClickHouse, so a week costs its hours, not its rows.
  const clickHouse = consoleClickHouseReads();
  return countDisagreementGroups(
    prismaQueryable(),
    { operation, from, to, limit: GROUP_LIMIT },
    clickHouse ? (op, counted, latest) => clickHouse.disagreementGroups(op, counted, latest) : undefined,
  );
}
