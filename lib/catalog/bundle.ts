import { stringify } from "yaml";
import { z } from "zod";
import { decodeYamlText, locateYamlPath } from "../../router-core/index";
import { ContractError, invalid, type TFieldError } from "../errors";
import { patchOf, ZAdapter, ZCatalogKey, ZGatewayLimits, ZOperation, ZProvider } from "./schemas";
import { ZBundleChannel } from "./bundle-notifications";
import { ZBundleCertification, ZBundleRegion } from "./bundle-declarations";

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

const ZBundleShape = {
  apiVersion: z.literal(BUNDLE_API_VERSION),
  /** Declared regions and their compliance rule (`requires`), applied first; omitted: left as they are. */
  regions: z.array(ZBundleRegion).max(200).optional(),
  /** Declared certifications, applied first; omitted: left as they are. */
  certifications: z.array(ZBundleCertification).max(200).optional(),
  providers: z.array(ZBundleProvider).max(500).default([]),
  operations: z.array(ZBundleOperation).max(500).default([]),
  /** Notification channels by name (lib/notify); omitted: left as they are. */
  notifications: z.array(ZBundleChannel).max(100).optional(),
};

export const ZBundle = z.strictObject(ZBundleShape).superRefine((b, ctx) => {
  const dup = (keys: string[], where: string, field: string) => {
    const seen = new Set<string>();
    keys.forEach((key, i) => {
      if (seen.has(key)) ctx.addIssue({ code: "custom", path: [where, i, field], message: `${key} appears twice in the bundle` });
      seen.add(key);
    });
  };
  const lists: [string, string, string[]][] = [
    ["providers", "key", b.providers.map((p) => p.key)],
    ["operations", "key", b.operations.map((o) => o.key)],
    ["regions", "name", (b.regions ?? []).map((r) => r.name)],
    ["certifications", "name", (b.certifications ?? []).map((c) => c.name)],
  ];
  for (const [where, field, keys] of lists) dup(keys, where, field);
});
export type TBundle = z.output<typeof ZBundle>;

/**
 * Reads bundle text with the factor-list decoder (text bounds, duplicate keys and alias bombs
 * refused, syntax errors with line and column), then validates it. Every refusal names its
 * field in one notation, items by key (`providers[sinch].certifications[0]`), with the line
 * and column of the field in the text.
 */
export function parseBundle(text: string): TBundle {
  const decoded = decodeYamlText(text);
  if (!decoded.ok) {
    const fields = decoded.errors.map((e) => ({ path: "", message: e.message.replace(/^factor list/, "the bundle") }));
    throw new ContractError(
      "malformed",
      fields.length === 1 && /^the bundle/.test(fields[0]!.message) ? fields[0]!.message : "the bundle is not valid YAML or JSON",
      fields,
    );
  }
  const parsed = ZBundle.safeParse(decoded.value);
  if (parsed.success) return parsed.data;
  const fields = new Map<string, TFieldError>();
  for (const issue of parsed.error.issues) {
    const keys = issue.code === "unrecognized_keys" ? issue.keys : [null];
    for (const key of keys) {
      const path = key === null ? issue.path : [...issue.path, key];
      const where = locateYamlPath(decoded.located, path);
      const at = "line" in where ? ` (line ${where.line}, column ${where.column})` : "";
      const message = key === null ? issue.message : `unknown field "${key}"; known fields: ${knownFields(issue.path)}`;
      const field = { path: bundlePath(decoded.value, path), message: `${message}${at}` };
      fields.set(`${field.path}\n${field.message}`, field);
    }
  }
  throw invalid([...fields.values()], "the bundle is invalid");
}

/** Items by their key (regions and certifications by name), other list entries by index: `operations[SEND_SMS].gatewayLimits`. */
function bundlePath(raw: unknown, path: readonly PropertyKey[]): string {
  const named = path.map((step, i) => {
    if (i !== 1 || typeof step !== "number") return step;
    const item = (raw as Record<string, unknown[] | undefined>)[String(path[0])]?.[step] as { key?: unknown; name?: unknown } | undefined;
    const key = item?.key ?? item?.name;
    return typeof key === "string" && ZCatalogKey.safeParse(key).success ? { key } : step;
  });
  let out = "";
  for (const step of named)
    out += typeof step === "object" ? `[${step.key}]` : typeof step === "number" ? `[${step}]` : out === "" ? String(step) : `.${String(step)}`;
  return out;
}

function knownFields(path: readonly PropertyKey[]): string {
  const shapes: Record<string, Record<string, unknown>> = {
    "": ZBundleShape,
    providers: ZBundleProvider.shape,
    "providers.adapter": ZAdapter.shape,
    operations: ZBundleOperation.shape,
    "operations.gatewayLimits": ZGatewayLimits.shape,
    regions: ZBundleRegion.shape,
    certifications: ZBundleCertification.shape,
  };
  const shape = shapes[path.filter((p) => typeof p === "string").join(".")];
  return shape ? Object.keys(shape).join(", ") : "see the schema";
}

export function bundleToYaml(bundle: TBundle): string {
  return `# Switchyard configuration bundle: npm run switchyard -- apply -f FILE --dry-run\n${stringify(bundle, { lineWidth: 0 })}`;
}
