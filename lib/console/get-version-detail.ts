import "server-only";
import { ControlPlaneError } from "@/lib/errors/api-errors";
import { getFactorListVersion } from "@/lib/controlplane/get-factor-list-version";
import { getPrisma } from "@/lib/db/client";

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/**
 * One factor-list version for its console page: the control plane's view of it, its author's
 * email and the number of the active version it is diffed against. Null when there is no such
 * version (the page answers 404).
 */
export async function getVersionDetail(id: string) {
  if (!UUID.test(id)) return null;
  const prisma = getPrisma();
  let data: Awaited<ReturnType<typeof getFactorListVersion>>;
  try {
    data = await getFactorListVersion(prisma, id);
  } catch (err) {
    if (err instanceof ControlPlaneError && err.status === 404) return null;
    throw err;
  }
  const { version: v, diff } = data;
  const [author, active, previousActive] = await Promise.all([
    v.authorId ? prisma.user.findUnique({ where: { id: v.authorId }, select: { email: true } }) : null,
    diff.activeVersionId ? prisma.factorListVersion.findUnique({ where: { id: diff.activeVersionId }, select: { version: true } }) : null,
    // The active version's page offers to roll back to the one that was live before it (the newest earlier activation).
    v.status === "active"
      ? prisma.factorListVersion.findFirst({
          where: { operationKey: v.operationKey, status: "superseded", activatedAt: { not: null }, id: { not: v.id } },
          orderBy: { activatedAt: "desc" },
          select: { id: true, version: true },
        })
      : null,
  ]);
  return { data, author, active, previousActive };
}

/** The fields the YAML editor starts from, or null when `id` names no version. */
export async function getVersionForEdit(id: string) {
  if (!UUID.test(id)) return null;
  return getPrisma().factorListVersion.findUnique({
    where: { id },
    select: { id: true, operationKey: true, version: true, status: true, yaml: true, changeNote: true },
  });
}
