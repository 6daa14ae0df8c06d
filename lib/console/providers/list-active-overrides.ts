import "server-only";
import { getPrisma } from "@/lib/db";
import { toOverrideRow } from "./to-override-row";
import type { TOverrideRow } from "../types";

/**
 * Overrides in effect at `at` (default now) that touch the operation (or every operation when
 * none is given): not ended by then, not expired by then. A null operation or region on the
 * override means "all", so those match too.
 */
export async function listActiveOverrides(opts: { operation?: string; at?: number } = {}): Promise<TOverrideRow[]> {
  const at = new Date(opts.at ?? Date.now());
  const rows = await getPrisma().override.findMany({
    where: {
      createdAt: { lte: at },
      AND: [
        { OR: [{ endedAt: null }, { endedAt: { gt: at } }] },
        { OR: [{ expiresAt: null }, { expiresAt: { gt: at } }] },
        ...(opts.operation ? [{ OR: [{ operationKey: null }, { operationKey: opts.operation }] }] : []),
      ],
    },
    orderBy: { createdAt: "desc" },
  });
  return rows.map(toOverrideRow);
}
