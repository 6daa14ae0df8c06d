import { PrismaPg } from "@prisma/adapter-pg";
import { PrismaClient } from "./generated/client";

export type { PrismaClient };

const globalForPrisma = globalThis as unknown as { __switchyardPrisma?: { url: string; client: PrismaClient } };

export function createPrisma(url: string): PrismaClient {
  return new PrismaClient({ adapter: new PrismaPg({ connectionString: url, max: 10 }) });
}

/**
 * The process-wide client. server.ts and Next's handlers run in one process, so they share
 * it through globalThis (Next bundles its own copy of this module).
 */
export function getPrisma(): PrismaClient {
  const url = process.env.DATABASE_URL;
  if (!url) throw new Error("DATABASE_URL is not set: start Switchyard through server.ts or set it");
  const cached = globalForPrisma.__switchyardPrisma;
  if (cached && cached.url === url) return cached.client;
  const client = createPrisma(url);
  globalForPrisma.__switchyardPrisma = { url, client };
  return client;
}
