import type { PrismaClient } from "../db";
import { toFault, type TFaultRow } from "./to-fault";

/** Faults that are active now or ended within `recentMs`, newest first (the chaos panel's list, the simulator's model). */
export async function listFaults(prisma: PrismaClient, recentMs: number, now = Date.now()): Promise<TFaultRow[]> {
  const since = new Date(now - recentMs);
  const rows = await prisma.demoFault.findMany({
    where: { endsAt: { gte: since }, OR: [{ endedAt: null }, { endedAt: { gte: since } }] },
    orderBy: { startsAt: "desc" },
    take: 200,
  });
  return rows.map(toFault);
}
