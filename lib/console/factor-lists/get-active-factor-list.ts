import "server-only";
import { getPrisma } from "@/lib/db";

/** The active version of an operation as its author wrote it (YAML) and as parsed (document), for the editor's starting point and live diff. */
export async function getActiveFactorList(operation: string): Promise<{ id: string; version: number; yaml: string; document: unknown } | null> {
  const prisma = getPrisma();
  const pointer = await prisma.operationPolicy.findUnique({ where: { operationKey: operation } });
  if (!pointer?.activeVersionId) return null;
  const v = await prisma.factorListVersion.findUnique({
    where: { id: pointer.activeVersionId },
    select: { id: true, version: true, yaml: true, document: true },
  });
  return v;
}
