import type { PrismaClient } from "../db/generated/client";

export async function listApiKeys(prisma: PrismaClient) {
  return prisma.apiKey.findMany({ orderBy: { createdAt: "desc" }, omit: { keyHash: true } });
}
