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
 * decision, clients' local ones too, by their count reports), as the agreement series is.
 */
export async function getShadowDisagreementGroups(operation: string, from: number, to: number): Promise<TDisagreementGroup[]> {
  const clickHouse = consoleClickHouseReads();
  if (clickHouse) return clickHouse.disagreementGroups(operation, from, to, GROUP_LIMIT);
  return countDisagreementGroups(prismaQueryable(), { operation, from, to, limit: GROUP_LIMIT });
}
