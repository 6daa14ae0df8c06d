import type { PrismaClient } from "../db";

/** Who asked for each pending catalogue change: the console hides approve/reject from the asker (four eyes). */
export async function pendingChangeRequesters(prisma: PrismaClient): Promise<Map<string, string | null>> {
  const rows = await prisma.catalogChange.findMany({ where: { status: "pending" }, select: { id: true, requestedById: true } });
  return new Map(rows.map((c) => [c.id, c.requestedById]));
}
