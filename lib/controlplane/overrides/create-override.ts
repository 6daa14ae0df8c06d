import { z } from "zod";
import type { TFactorList } from "../../../router-core/index";
import { type Prisma, type PrismaClient, notifyConfigChange } from "../../db";
import { type TActor, appendAudit } from "../../audit";
import { ContractError, invalid, type TFieldError } from "../../errors";
import { notifyOverride } from "../../notify";
import { DEFAULT_PIN_MAX_EXPIRY_HOURS, type TOverrideLimits } from "./override-limits";

const reason = z.string().trim().min(3, "give a reason (at least 3 characters): on-call reads it during the incident").max(2000);
const expiresAt = z.iso.datetime({ offset: true, error: "expiresAt must be an ISO 8601 date-time with a time zone" }).optional();
const key = (name: string) => z.string().trim().min(1, `${name} must not be empty`);

export const ZCreateOverrideBody = z.discriminatedUnion("kind", [
  /** Adaptive routing off for one operation: decisions follow the static priority order. */
  z.strictObject({ kind: z.literal("routing_kill_switch"), operationKey: key("operationKey"), region: key("region").optional(), reason, expiresAt }),
  /** A provider out of rotation everywhere, or only for one operation and/or region. */
  z.strictObject({
    kind: z.literal("provider_kill"),
    providerKey: key("providerKey"),
    operationKey: key("operationKey").optional(),
    region: key("region").optional(),
    reason,
    expiresAt,
  }),
  z.strictObject({
    kind: z.literal("provider_pin"),
    providerKey: key("providerKey"),
    operationKey: key("operationKey"),
    region: key("region").optional(),
    reason,
    expiresAt,
  }),
]);
export type TCreateOverrideBody = z.output<typeof ZCreateOverrideBody>;

/** The providers an operation lists: its active factor list's order, or the whole catalogue when that names none. */
async function providersOfOperation(tx: Prisma.TransactionClient, operationKey: string): Promise<string[] | null> {
  const policy = await tx.operationPolicy.findUnique({ where: { operationKey } });
  const active = policy?.activeVersionId ? await tx.factorListVersion.findUnique({ where: { id: policy.activeVersionId } }) : null;
  const listed = (active?.document as unknown as TFactorList | undefined)?.providers ?? [];
  return listed.length > 0 ? listed : null;
}

/** How much of a refused value an error message repeats. */
const SHOWN = 40;
const shown = (v: string) => JSON.stringify(v.length > SHOWN ? `${v.slice(0, SHOWN)}…` : v);

/**
 * An override's region must be one the catalogue knows for its scope: the named provider's
 * regions, else those of the operation's providers, else those of any provider. A free-text
 * region would be stored and shown, and match no decision.
 */
async function regionProblem(
  tx: Prisma.TransactionClient,
  region: string,
  provider: { key: string; supportedRegions: string[] } | null,
  operationKey: string | null,
): Promise<string | null> {
  if (provider) {
    return provider.supportedRegions.includes(region)
      ? null
      : `${provider.key} does not serve region ${shown(region)} (serves ${provider.supportedRegions.join(", ")})`;
  }
  const listed = operationKey ? await providersOfOperation(tx, operationKey) : null;
  const providers = await tx.provider.findMany({ where: listed ? { key: { in: listed } } : {}, select: { supportedRegions: true } });
  const regions = [...new Set(providers.flatMap((p) => p.supportedRegions))].sort();
  if (regions.includes(region)) return null;
  const scope = operationKey && listed ? `the providers of ${operationKey}` : "the catalogue's providers";
  return `unknown region ${shown(region)}: ${scope} serve ${regions.join(", ") || "no region"}`;
}

const DEFAULT_LIMITS: TOverrideLimits = { pinMaxExpiryMs: DEFAULT_PIN_MAX_EXPIRY_HOURS * 3_600_000 };

/** A pin sends all traffic to one provider whatever happens to it, so it must end by itself within the configured maximum. */
function expiryProblem(body: TCreateOverrideBody, expires: Date | null, now: Date, limits: TOverrideLimits): string | null {
  if (expires && expires <= now) return `expiresAt must be in the future, got ${body.expiresAt}`;
  if (body.kind !== "provider_pin") return null;
  const hours = limits.pinMaxExpiryMs / 3_600_000;
  if (!expires) return `a pin needs an expiry (at most ${hours} h from now)`;
  if (expires.getTime() - now.getTime() > limits.pinMaxExpiryMs) return `a pin may last at most ${hours} h; expiresAt ${body.expiresAt} is later`;
  return null;
}

/**
 * Creates a kill switch, provider kill or pin, effective on every instance as soon as the
 * transaction commits (NOTIFY). All problems with the request are reported together.
 */
export async function createOverride(prisma: PrismaClient, actor: TActor, body: TCreateOverrideBody, now = new Date(), limits = DEFAULT_LIMITS) {
  return prisma.$transaction(async (tx) => {
    const errors: TFieldError[] = [];
    const expires = body.expiresAt ? new Date(body.expiresAt) : null;
    const expiryError = expiryProblem(body, expires, now, limits);
    if (expiryError) errors.push({ path: "expiresAt", message: expiryError });
    const operationKey = body.operationKey ?? null;
    if (operationKey && !(await tx.operation.findUnique({ where: { key: operationKey } }))) {
      errors.push({ path: "operationKey", message: `unknown operation "${operationKey}"` });
    }
    const providerKey = body.kind === "routing_kill_switch" ? null : body.providerKey;
    const provider = providerKey ? await tx.provider.findUnique({ where: { key: providerKey } }) : null;
    if (providerKey && !provider) errors.push({ path: "providerKey", message: `unknown provider "${providerKey}"` });
    const regionError = body.region ? await regionProblem(tx, body.region, provider, operationKey) : null;
    if (regionError) errors.push({ path: "region", message: regionError });
    if (body.kind === "provider_pin" && provider && operationKey) {
      const listed = await providersOfOperation(tx, operationKey);
      if (listed && !listed.includes(provider.key)) {
        errors.push({ path: "providerKey", message: `${operationKey} does not list ${provider.key}; it lists ${listed.join(", ")}` });
      }
    }
    if (errors.length > 0) throw invalid(errors);

    const region = body.region ?? null;
    const clash = await tx.override.findFirst({
      where: {
        kind: body.kind,
        operationKey,
        region,
        ...(body.kind === "provider_pin" ? {} : { providerKey }),
        endedAt: null,
        OR: [{ expiresAt: null }, { expiresAt: { gt: now } }],
      },
    });
    if (clash) throw new ContractError("override_exists", `an active ${body.kind} for this scope already exists (${clash.id}); end it first`);

    const created = await tx.override.create({
      data: { kind: body.kind, operationKey, region, providerKey, reason: body.reason, createdById: actor.userId, createdAt: now, expiresAt: expires },
    });
    await notifyConfigChange(tx, { kind: "override", operationKey });
    await notifyOverride(tx, created, "set", actor, now);
    await appendAudit(tx, actor, { action: "override.create", targetType: "override", targetId: created.id, after: created, reason: body.reason }, now);
    return created;
  });
}
