import type { Prisma } from "../db";
import type { TFieldError } from "../errors";

/**
 * Regions and certifications are declared catalogue entries (the `region` and `certification`
 * tables). Every write that names one refuses an undeclared value, so a misspelling (`EUR`,
 * `gpdr`) is an error listing the known values instead of silently a new region or certification
 * that no rule and no decision ever matches.
 */
export type TDeclaredNames = { regions: ReadonlySet<string>; certifications: ReadonlySet<string> };

export async function loadDeclaredNames(tx: Prisma.TransactionClient): Promise<TDeclaredNames> {
  const [regions, certifications] = await Promise.all([tx.region.findMany({ select: { name: true } }), tx.certification.findMany({ select: { name: true } })]);
  return { regions: new Set(regions.map((r) => r.name)), certifications: new Set(certifications.map((c) => c.name)) };
}

/** The declared names plus those a bundle declares before it uses them. */
export function withDeclared(declared: TDeclaredNames, more: { regions?: readonly string[]; certifications?: readonly string[] }): TDeclaredNames {
  return {
    regions: new Set([...declared.regions, ...(more.regions ?? [])]),
    certifications: new Set([...declared.certifications, ...(more.certifications ?? [])]),
  };
}

const MAX_LISTED = 40;

function known(names: ReadonlySet<string>, kind: "regions" | "certifications"): string {
  if (names.size === 0) return `no ${kind} are declared yet; declare one first (a bundle's ${kind} section, or PUT /api/control/catalog/${kind}/NAME)`;
  const sorted = [...names].sort();
  const shown = sorted.slice(0, MAX_LISTED).join(", ");
  return `known ${kind}: ${shown}${sorted.length > MAX_LISTED ? `, … (${sorted.length - MAX_LISTED} more)` : ""}`;
}

/** A 422 field per undeclared region (`*`, every region, is always allowed where a schema takes it). */
export function undeclaredRegions(declared: TDeclaredNames, regions: readonly string[], path: (i: number) => string): TFieldError[] {
  const out: TFieldError[] = [];
  regions.forEach((r, i) => {
    if (r !== "*" && !declared.regions.has(r)) out.push({ path: path(i), message: `unknown region "${r}"; ${known(declared.regions, "regions")}` });
  });
  return out;
}

export function undeclaredCertifications(declared: TDeclaredNames, certifications: readonly string[], path: (i: number) => string): TFieldError[] {
  const out: TFieldError[] = [];
  certifications.forEach((c, i) => {
    if (!declared.certifications.has(c))
      out.push({ path: path(i), message: `unknown certification "${c}"; ${known(declared.certifications, "certifications")}` });
  });
  return out;
}

/** Region → certifications (an operation's requirements, a factor list's region rules): keys and values checked. */
export function undeclaredInRequirements(
  declared: TDeclaredNames,
  requirements: Readonly<Record<string, readonly string[]>>,
  path: (region: string, i?: number) => string,
): TFieldError[] {
  return Object.entries(requirements).flatMap(([region, certs]) => [
    ...undeclaredRegions(declared, [region], () => path(region)),
    ...undeclaredCertifications(declared, certs, (i) => path(region, i)),
  ]);
}
