import type { Prisma } from "../db";
import { invalid, type TFieldError } from "../errors";
import { loadDeclaredNames, undeclaredCertifications, undeclaredInRequirements, undeclaredRegions, type TDeclaredNames } from "../controlplane";
import type { TOperation, TProvider } from "./schemas";

/** A provider's undeclared regions and certifications, as 422 fields under `prefix` (`providers[sinch].`). */
export function providerNameErrors(declared: TDeclaredNames, p: Pick<TProvider, "regions" | "certifications">, prefix = ""): TFieldError[] {
  return [
    ...undeclaredRegions(declared, p.regions, (i) => `${prefix}regions[${i}]`),
    ...undeclaredCertifications(declared, p.certifications, (i) => `${prefix}certifications[${i}]`),
  ];
}

/** An operation's requirements naming an undeclared region or certification. */
export function operationNameErrors(declared: TDeclaredNames, o: Pick<TOperation, "regionRequirements">, prefix = ""): TFieldError[] {
  return undeclaredInRequirements(declared, o.regionRequirements, (region, i) =>
    i === undefined ? `${prefix}regionRequirements.${region}` : `${prefix}regionRequirements.${region}[${i}]`,
  );
}

/** Refuses (422 `invalid`) a provider or operation that names a region or certification nobody declared. */
export async function refuseUndeclared(tx: Prisma.TransactionClient, item: { provider: TProvider } | { operation: TOperation }): Promise<void> {
  const declared = await loadDeclaredNames(tx);
  const errors = "provider" in item ? providerNameErrors(declared, item.provider) : operationNameErrors(declared, item.operation);
  // One field: its message (with the known values) is the refusal's; more: each field says its own.
  if (errors.length > 0)
    throw invalid(errors, errors.length === 1 ? errors[0]!.message : `${errors.length} undeclared regions or certifications: ${errors[0]!.message}; …`);
}
