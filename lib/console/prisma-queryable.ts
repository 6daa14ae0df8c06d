import "server-only";
import { getPrisma } from "@/lib/db/client";
import type { TCountQueryable } from "@/lib/dataplane/decision-log/counts";

/** pg's query signature over the process's Prisma client, for the readers that take one (decision counts, recorded traffic). */
export const prismaQueryable = (): TCountQueryable => ({
  query: async <R>(sql: string, params: unknown[]) => ({ rows: await getPrisma().$queryRawUnsafe<R[]>(sql, ...params) }),
});
