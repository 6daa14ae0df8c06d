import "server-only";
import { ContractError } from "@/lib/errors";
import { getFactorListVersion, reviewStanding, weakeningsAgainstActive } from "@/lib/controlplane";
import { getPrisma } from "@/lib/db";
import type { TViewer } from "../get-viewer";

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/**
 * One factor-list version for its console page: the control plane's view of it, its author's
 * email, the number of the active version it is diffed against, and where its review stands
 * for the viewer. Null when there is no such
 * version (the page answers 404).
 */
export async function getVersionDetail(id: string, viewer: TViewer) {
  if (!UUID.test(id)) return null;
  const prisma = getPrisma();
  let data: Awaited<ReturnType<typeof getFactorListVersion>>;
  try {
    data = await getFactorListVersion(prisma, id);
  } catch (err) {
    if (err instanceof ContractError && err.status === 404) return null;
    throw err;
  }
  const { version: v, diff } = data;
  const [standing, weakenings, author, active, previousActive] = await Promise.all([
    // What this person may do about the version now, and what it still waits for.
    reviewStanding(prisma, v, viewer?.id ?? null, viewer?.permissions ?? []),
    // How it loosens compliance against the live version: shown on the page and confirmed at activation.
    weakeningsAgainstActive(prisma, v),
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
  return { data, standing, weakenings, author, active, previousActive };
}

/** The fields the YAML editor starts from, or null when `id` names no version. */
export async function getVersionForEdit(id: string) {
  if (!UUID.test(id)) return null;
  return getPrisma().factorListVersion.findUnique({
    where: { id },
    select: { id: true, operationKey: true, version: true, status: true, yaml: true, changeNote: true },
  });
}
