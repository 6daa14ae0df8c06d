import { PrismaPg } from "@prisma/adapter-pg";
import { PrismaClient } from "./generated/client";
import { readProcessSlot, writeProcessSlot } from "../runtime";

export type { PrismaClient };

export function createPrisma(url: string): PrismaClient {
  return new PrismaClient({ adapter: new PrismaPg({ connectionString: url, max: 10 }) });
}

/**
 * The process-wide client. server.ts and Next's handlers run in one process, so they share
 * it through a process slot (Next bundles its own copy of this module).
 */
export function getPrisma(): PrismaClient {
  const url = process.env.DATABASE_URL;
  if (!url) throw new Error("DATABASE_URL is not set: start Switchyard through server.ts or set it");
  const cached = readProcessSlot<{ url: string; client: PrismaClient }>("prisma");
  if (cached && cached.url === url) return cached.client;
  const client = createPrisma(url);
  writeProcessSlot("prisma", { url, client });
  return client;
}
