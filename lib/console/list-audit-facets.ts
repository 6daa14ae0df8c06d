import "server-only";
import { getPrisma } from "@/lib/db";

/** The actions, actors and target types the audit log holds, for the filter pickers. */
export async function listAuditFacets(): Promise<{ actions: string[]; actors: string[]; targetTypes: string[] }> {
  const prisma = getPrisma();
  const [actions, actors, targetTypes] = await Promise.all([
    prisma.auditEntry.findMany({ distinct: ["action"], select: { action: true }, orderBy: { action: "asc" } }),
    prisma.auditEntry.findMany({ distinct: ["actor"], select: { actor: true }, orderBy: { actor: "asc" } }),
    prisma.auditEntry.findMany({ distinct: ["targetType"], select: { targetType: true }, orderBy: { targetType: "asc" } }),
  ]);
  return { actions: actions.map((a) => a.action), actors: actors.map((a) => a.actor), targetTypes: targetTypes.map((t) => t.targetType) };
}
