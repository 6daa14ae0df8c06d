import { parseDocument, stringify } from "yaml";
import { z } from "zod";
import { checkPolicyTextBounds } from "../../router-core/index";
import { ControlPlaneError, invalid, zodFields } from "../errors/api-errors";
import { patchOf, ZAdapter, ZCatalogKey, ZGatewayLimits, ZOperation, ZProvider } from "./schemas";

/**
 * Configuration as code: one YAML (or JSON) document holding the catalogue and each operation's
 * factor list. Made of the same zod schemas as the API; `npm run switchyard -- export | apply`.
 */
export const BUNDLE_API_VERSION = "switchyard/v1";

/**
 * A bundle names the fields it sets: a field left out keeps its current value (a new item gets
 * the default), so a bundle written to change one field changes only that field. Clearing is
 * explicit (`credentialRef: null`, `costPerRequest: 0`), and the plan warns about it.
 */
export const ZBundleProvider = patchOf(ZProvider).extend({
  key: ZCatalogKey,
  /** Execute mode's adapter; omitted: left as it is; null: removed; its fields merge as the provider's do. */
  adapter: patchOf(ZAdapter).nullable().optional(),
});

export const ZBundleOperation = patchOf(ZOperation).extend({
  key: ZCatalogKey,
  /** Execute-mode limits; omitted: left as they are; their fields merge as the operation's do. */
  gatewayLimits: patchOf(ZGatewayLimits).nullable().optional(),
  /** The factor list that should be active (the paper's Listing 1 fields), as a whole document; omitted: left as it is. */
  factorList: z.record(z.string(), z.unknown()).nullable().optional(),
});

export const ZBundle = z
  .strictObject({
    apiVersion: z.literal(BUNDLE_API_VERSION),
    providers: z.array(ZBundleProvider).max(500).default([]),
    operations: z.array(ZBundleOperation).max(500).default([]),
  })
  .superRefine((b, ctx) => {
    const dup = (items: { key: string }[], where: string) => {
      const seen = new Set<string>();
      items.forEach((it, i) => {
        if (seen.has(it.key)) ctx.addIssue({ code: "custom", path: [where, i, "key"], message: `${it.key} appears twice in the bundle` });
        seen.add(it.key);
      });
    };
    dup(b.providers, "providers");
    dup(b.operations, "operations");
  });
export type TBundle = z.output<typeof ZBundle>;

/**
 * Reads bundle text within the factor-list text bounds (size, nesting, flow collections: the
 * YAML parser's cost grows faster than linearly with nesting), refusing duplicate keys and
 * alias bombs, then validates it. Every refusal names its field path.
 */
export function parseBundle(text: string): TBundle {
  const bounds = checkPolicyTextBounds(text);
  if (bounds)
    throw new ControlPlaneError(400, "malformed", `${bounds.message.replace(/^factor list/, "the bundle")}`, [
      { path: "", message: bounds.message.replace(/^factor list/, "the bundle") },
    ]);
  let raw: unknown;
  try {
    const doc = parseDocument(text, { uniqueKeys: true, prettyErrors: false });
    if (doc.errors.length > 0)
      throw new ControlPlaneError(
        400,
        "malformed",
        "the bundle is not valid YAML or JSON",
        doc.errors.map((e) => ({ path: "", message: e.message })),
      );
    raw = doc.toJS({ maxAliasCount: 100 });
  } catch (err) {
    if (err instanceof ControlPlaneError) throw err;
    throw new ControlPlaneError(400, "malformed", "the bundle is not valid YAML or JSON", [
      { path: "", message: err instanceof Error ? err.message : String(err) },
    ]);
  }
  const parsed = ZBundle.safeParse(raw);
  if (!parsed.success) throw invalid(zodFields(parsed.error), "the bundle is invalid");
  return parsed.data;
}

export function bundleToYaml(bundle: TBundle): string {
  return `# Switchyard configuration bundle: npm run switchyard -- apply -f FILE --dry-run\n${stringify(bundle, { lineWidth: 0 })}`;
}
