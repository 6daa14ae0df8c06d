import { z } from "zod";
import { ZHttpJsonOptions, ADAPTER_KINDS, CREDENTIAL_REF_PATTERN } from "../gateway";
import { QUOTA_UNITS, ZQuota } from "../dataplane";

/**
 * The catalogue as the control plane, the console and the YAML bundle read and write it. These
 * zod schemas are the one source of truth: the API validates with them, the bundle is made of
 * them and /api/control/openapi.json is generated from them. No Node or database imports, so
 * client components can use them too.
 */

export { ADAPTER_KINDS, QUOTA_UNITS, ZQuota };
export const CRITICALITIES = ["low", "medium", "high", "critical"] as const;

const uniq = (items: readonly string[]) => new Set(items).size === items.length;

export const ZCatalogKey = z
  .string()
  .regex(/^[A-Za-z][A-Za-z0-9_.-]{0,63}$/, "must start with a letter and hold only letters, digits, _ . - (at most 64 characters)");

export const ZRegion = z
  .string()
  .regex(/^(\*|[A-Z][A-Z0-9_-]{0,31})$/, 'a region is upper case letters, digits, _ or - (e.g. EU, NA, APAC), or "*" for every region');

/** A named region (requirements are per named region; "*" is not one). */
export const ZRegionName = z.string().regex(/^[A-Z][A-Z0-9_-]{0,31}$/, "a region is upper case letters, digits, _ or - (e.g. EU, NA, APAC)");

export const ZCertification = z.string().regex(/^[a-z][a-z0-9_]{0,39}$/, "a certification is lower case letters, digits and _ (e.g. gdpr, soc2, pci_dss)");

/** A declared region and its compliance rule: what every provider serving any operation there must hold. */
export const ZRegionEntry = z.strictObject({
  name: ZRegionName,
  requires: z.array(ZCertification).max(64).refine(uniq, "certifications must not repeat").default([]),
});
export type TRegionEntry = z.output<typeof ZRegionEntry>;

export const ZCertificationEntry = z.strictObject({
  name: ZCertification,
  description: z.string().max(500).default(""),
});
export type TCertificationEntry = z.output<typeof ZCertificationEntry>;

export const ZCredentialRef = z.string().max(300).regex(CREDENTIAL_REF_PATTERN, "must be a reference (env:NAME or file:/path), never the secret itself");

const money = (what: string) => z.number().min(0, `${what} cannot be negative`).max(1_000_000, `${what} is at most 1,000,000`);
/** Stored as numeric(12, 6): more digits would be rounded away, and a bundle would never read back equal. */
const price = (what: string) => money(what).refine((v) => Math.abs(v * 1e6 - Math.round(v * 1e6)) < 1e-6, `${what} has at most 6 decimal places`);

export const ZProvider = z.strictObject({
  key: ZCatalogKey,
  displayName: z.string().trim().min(1, "give the provider a display name").max(200),
  regions: z.array(ZRegion).min(1, "a provider serves at least one region").max(64).refine(uniq, "regions must not repeat"),
  certifications: z.array(ZCertification).max(64).refine(uniq, "certifications must not repeat").default([]),
  costPerRequest: price("costPerRequest").default(0),
  /** LLM providers: price per 1,000 input and output tokens. */
  costPerInputToken1k: price("costPerInputToken1k").nullable().default(null),
  costPerOutputToken1k: price("costPerOutputToken1k").nullable().default(null),
  quotas: z.array(ZQuota).max(16).default([]),
  credentialRef: ZCredentialRef.nullable().default(null),
  enabled: z.boolean().default(true),
});
export type TProvider = z.output<typeof ZProvider>;

/**
 * An edit of an object: every field optional and, unlike zod 4's `.partial()`, without its
 * default, since `.partial()` fills a missing field with its default and a PATCH of `quotas`
 * alone would reset `certifications` to [] and `costPerRequest` to 0.
 */
export function patchOf<T extends z.ZodRawShape>(schema: z.ZodObject<T>) {
  const fields = Object.fromEntries(
    Object.entries(schema.shape).map(([k, s]) => [k, (s instanceof z.ZodDefault ? (s.removeDefault() as z.ZodType) : (s as z.ZodType)).optional()]),
  ) as unknown as { [K in keyof T]: z.ZodOptional<T[K] extends z.ZodDefault<infer U> ? U : T[K]> };
  return z.strictObject(fields);
}

/** An edit: any field but the key may change; `key` renames (refused while a policy names it). */
export const ZProviderPatch = patchOf(ZProvider);
export type TProviderPatch = z.output<typeof ZProviderPatch>;

export const ZRegionRequirements = z
  .record(ZRegionName, z.array(ZCertification).max(64).refine(uniq, "certifications must not repeat"))
  .refine((r) => Object.keys(r).length <= 64, "at most 64 regions");

export const ZOperation = z.strictObject({
  key: ZCatalogKey,
  description: z.string().max(2000).default(""),
  criticality: z.enum(CRITICALITIES).default("medium"),
  /** Region → certifications a provider must hold to serve this operation there (EU: [gdpr]). */
  regionRequirements: ZRegionRequirements.default({}),
  enabled: z.boolean().default(true),
});
export type TOperation = z.output<typeof ZOperation>;

export const ZOperationPatch = patchOf(ZOperation.omit({ key: true }));
export type TOperationPatch = z.output<typeof ZOperationPatch>;

/**
 * How execute mode calls a provider. One adapter per provider (the gateway keys adapters by
 * provider); it uses the provider's credential reference and token prices.
 */
export const ZAdapter = z
  .strictObject({
    kind: z.enum(ADAPTER_KINDS),
    baseUrl: z
      .string()
      .max(2000)
      .refine((u) => URL.canParse(u), "must be an absolute URL (https://…)"),
    model: z.string().min(1).max(200).nullable().default(null),
    contextWindow: z.number().int().positive().max(100_000_000).nullable().default(null),
    timeoutMs: z.number().int().min(100).max(600_000).default(30_000),
    /** http_json: method, path, headers and body templates (lib/gateway/adapters/http-json.ts). */
    options: z.record(z.string(), z.unknown()).default({}),
  })
  .superRefine((a, ctx) => {
    if (a.kind !== "http_json" && !a.model) ctx.addIssue({ code: "custom", path: ["model"], message: `model is required for ${a.kind}` });
    if (a.kind === "http_json") {
      const parsed = ZHttpJsonOptions.safeParse(a.options);
      if (!parsed.success) for (const i of parsed.error.issues) ctx.addIssue({ code: "custom", path: ["options", ...i.path.map(String)], message: i.message });
    }
  });
export type TAdapter = z.output<typeof ZAdapter>;

export const ZGatewayLimits = z.strictObject({
  deadlineMs: z.number().int().min(100).max(600_000).default(30_000),
  maxAttempts: z.number().int().min(1).max(10).default(3),
  retryBudgetRatio: z.number().min(0).max(1).default(0.2),
  retryBudgetMinPerSecond: z.number().min(0).max(10_000).default(3),
  costCapPerMinute: money("costCapPerMinute").nullable().default(null),
  costCapPerDay: money("costCapPerDay").nullable().default(null),
  maxFallbackSeconds: z.number().int().min(1).max(86_400).nullable().default(null),
  cacheTtlSeconds: z.number().int().min(1).max(86_400).nullable().default(null),
  idempotencyWindowSeconds: z.number().int().min(1).max(86_400).default(300),
});
export type TGatewayLimits = z.output<typeof ZGatewayLimits>;

export const ZReviewComment = z.strictObject({ comment: z.string().max(2000).default("") });

/** Where a credential reference resolves on this instance: never the value. */
export const CREDENTIAL_STATES = ["resolved", "missing", "none"] as const;
export type TCredentialState = (typeof CREDENTIAL_STATES)[number];
