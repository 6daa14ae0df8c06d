import { z } from "zod";
import { factorListToYaml, parseFactorList, type TFactorList } from "../../../router-core/index";
import type { Prisma } from "../../db";
import { invalid, type TFieldError } from "../../errors";
import { loadDeclaredNames, undeclaredInRequirements } from "../declared-names";

/** A factor list arrives as YAML text (the paper's Listing 1 format) or as a JSON object. */
export const ZFactorListSource = z
  .strictObject({
    yaml: z.string().min(1, "yaml must not be empty").optional(),
    document: z.record(z.string(), z.unknown()).optional(),
    changeNote: z.string().max(2000).default(""),
  })
  .refine((v) => (v.yaml === undefined) !== (v.document === undefined), { message: "give exactly one of yaml or document", path: ["yaml"] });
export type TFactorListSource = z.input<typeof ZFactorListSource>;

/**
 * Parses and checks a factor list against the catalogue. Every error is collected (router-core's
 * by field path, then unknown operation/providers) so one round trip shows all of them.
 */
export async function validateFactorList(tx: Prisma.TransactionClient, source: TFactorListSource): Promise<{ value: TFactorList; yaml: string }> {
  const parsed = parseFactorList(source.yaml ?? source.document);
  if (!parsed.ok)
    throw invalid(
      parsed.errors.map((e) => ({ path: e.path, message: e.message })),
      "the factor list is invalid",
    );
  const fl = parsed.value;
  const errors: TFieldError[] = [];
  const operation = await tx.operation.findUnique({ where: { key: fl.operation }, select: { key: true, enabled: true } });
  if (!operation) errors.push({ path: "operation", message: `unknown operation "${fl.operation}"` });
  // A disabled operation takes no new policy (disabling it was refused while one was live).
  else if (!operation.enabled) errors.push({ path: "operation", message: `operation "${fl.operation}" is disabled in the catalogue` });
  const known = new Set((await tx.provider.findMany({ select: { key: true } })).map((p) => p.key));
  fl.providers.forEach((p, i) => {
    if (!known.has(p)) errors.push({ path: `providers[${i}]`, message: `unknown provider "${p}"; known providers: ${[...known].join(", ")}` });
  });
  for (const [region, rule] of Object.entries(fl.regions)) {
    rule.providers?.forEach((p, i) => {
      if (!known.has(p)) errors.push({ path: `regions.${region}.providers[${i}]`, message: `unknown provider "${p}"` });
    });
  }
  const rules = Object.fromEntries(Object.entries(fl.regions).map(([region, rule]) => [region, rule.required_compliance]));
  errors.push(
    ...undeclaredInRequirements(await loadDeclaredNames(tx), rules, (region, i) =>
      i === undefined ? `regions.${region}` : `regions.${region}.required_compliance[${i}]`,
    ),
  );
  if (errors.length > 0) throw invalid(errors, "the factor list is invalid");
  return { value: fl, yaml: source.yaml ?? factorListToYaml(fl) };
}
