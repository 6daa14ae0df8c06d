import type { PrismaClient } from "../../db";

export async function listUsers(prisma: PrismaClient) {
  return prisma.user.findMany({ orderBy: { email: "asc" }, omit: { passwordHash: true } });
}
