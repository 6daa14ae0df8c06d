import { z } from "zod";
import type { Prisma, PrismaClient } from "../db";
import type { TActor } from "../audit";
import type { TFieldError } from "../errors";
import { loadDeclaredNames, undeclaredCertifications, withDeclared, type TDeclaredNames } from "../controlplane";
import { putCertification } from "./put-certification";
import { putRegion } from "./put-region";
import { sameSet } from "./catalog-rows";
import { ZCertification, ZRegionEntry, type TCertificationEntry, type TRegionEntry } from "./schemas";

/**
 * The bundle's `regions:` and `certifications:` sections: the declared names every other item
 * may use, applied first in the bundle's transaction so a bundle can declare a region and use it.
 * Omitted or left out: left as they are (a bundle never deletes one).
 */
export const ZBundleRegion = ZRegionEntry;
/** A description left out keeps the current one. */
export const ZBundleCertification = z.strictObject({ name: ZCertification, description: z.string().max(500).optional() });
export type TBundleCertification = z.output<typeof ZBundleCertification>;

type TChange = { target: string; path: string; action: "create" | "update" | "request"; effect: "applied" | "pending"; detail: string };

const listed = (xs: readonly string[]) => (xs.length > 0 ? xs.join(", ") : "nothing");

/**
 * Plans both sections and returns the names the rest of the bundle may use: those declared on
 * the instance plus those the bundle declares. A region requiring an undeclared certification is
 * refused into `errors`; dropping a required certification waits for compliance where someone
 * else could approve it (`reviewed`), as putRegion decides.
 */
export async function planDeclarations(
  tx: Prisma.TransactionClient,
  sections: { regions?: readonly TRegionEntry[]; certifications?: readonly TBundleCertification[] },
  errors: TFieldError[],
  opts: { reviewed: boolean; held: (type: string, key: string, payload: unknown) => boolean },
): Promise<{ changes: TChange[]; declared: TDeclaredNames }> {
  const regions = sections.regions ?? [];
  const certifications = sections.certifications ?? [];
  const declared = withDeclared(await loadDeclaredNames(tx), { regions: regions.map((r) => r.name), certifications: certifications.map((c) => c.name) });
  const changes: TChange[] = [];
  const certRows = new Map((await tx.certification.findMany()).map((c) => [c.name, c]));
  for (const c of certifications) {
    const row = certRows.get(c.name);
    if (row && (c.description === undefined || c.description === row.description)) continue;
    changes.push({
      target: `certification ${c.name}`,
      path: `certifications[${c.name}]`,
      action: row ? "update" : "create",
      effect: "applied",
      detail: c.description ?? "",
    });
  }
  const regionRows = new Map((await tx.region.findMany()).map((r) => [r.name, r]));
  for (const r of regions) {
    errors.push(...undeclaredCertifications(declared, r.requires, (i) => `regions[${r.name}].requires[${i}]`));
    const row = regionRows.get(r.name);
    const target = `region ${r.name}`;
    const path = `regions[${r.name}]`;
    if (!row) {
      changes.push({ target, path, action: "create", effect: "applied", detail: `requires ${listed(r.requires)}` });
      continue;
    }
    if (sameSet(row.requires, r.requires) || opts.held("region", r.name, r)) continue;
    const dropped = row.requires.filter((c) => !r.requires.includes(c));
    const detail = `requires ${listed(row.requires)} → ${listed(r.requires)}`;
    if (dropped.length > 0 && opts.reviewed)
      changes.push({ target, path, action: "request", effect: "pending", detail: `${detail}; waits because: no longer requires ${dropped.join(", ")}` });
    else changes.push({ target, path, action: "update", effect: "applied", detail });
  }
  return { changes, declared };
}

/** Writes both sections through the same functions the API uses; `step` runs each in its savepoint. */
export async function writeDeclarations(
  db: PrismaClient,
  actor: TActor,
  sections: { regions?: readonly TRegionEntry[]; certifications?: readonly TBundleCertification[] },
  step: (target: string, write: () => Promise<unknown>) => Promise<void>,
): Promise<void> {
  for (const c of sections.certifications ?? [])
    await step(`certification ${c.name}`, async () => {
      const row = await db.certification.findUnique({ where: { name: c.name } });
      await putCertification(db, actor, { name: c.name, description: c.description ?? row?.description ?? "" });
    });
  for (const r of sections.regions ?? []) await step(`region ${r.name}`, () => putRegion(db, actor, r));
}

/** Every declared region and certification, by name: a stable order for a diff-friendly bundle. */
export async function exportDeclarations(prisma: PrismaClient): Promise<{ regions: TRegionEntry[]; certifications: TCertificationEntry[] }> {
  const [regions, certifications] = await Promise.all([
    prisma.region.findMany({ orderBy: { name: "asc" } }),
    prisma.certification.findMany({ orderBy: { name: "asc" } }),
  ]);
  return {
    regions: regions.map((r) => ({ name: r.name, requires: [...r.requires].sort() })),
    certifications: certifications.map((c) => ({ name: c.name, description: c.description })),
  };
}
