import "server-only";
import { getPrisma } from "@/lib/db";
import type { TCountQueryable } from "@/lib/dataplane";

/** pg's query signature over the process's Prisma client, for the readers that take one (decision counts, recorded traffic). */
export const prismaQueryable = (): TCountQueryable => ({
  query: async <R>(sql: string, params: unknown[]) => ({ rows: await getPrisma().$queryRawUnsafe<R[]>(sql, ...params) }),
});
