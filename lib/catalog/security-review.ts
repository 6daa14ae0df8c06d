import type { Prisma } from "../db";
import type { TActor } from "../audit";
import { isDemoMode, ROLES, roleGrants } from "../auth";
import type { TFieldError } from "../errors";
import { credentialRefProblem, secretNamespaceFromEnv } from "../gateway";
import { adapterHeaderProblems } from "./adapter-secrets";
import type { TAdapter, TProvider } from "./schemas";

/**
 * Security-class catalogue changes: what decides which secret is sent where. A provider's
 * credential reference and its adapter's kind, base URL and templates (method, path, headers,
 * body) wait, like compliance changes, for someone else holding catalog.approve_compliance.
 * Where nobody else could approve (a single-admin install), they apply at once and the audit
 * entry says `single_reviewer: true`, as role grants say single_admin.
 */
export function providerSecurityReasons(before: TProvider, after: TProvider): string[] {
  if (before.credentialRef === after.credentialRef || after.credentialRef === null) return [];
  return [`credential reference ${before.credentialRef ?? "none"} → ${after.credentialRef}`];
}

const hostOf = (url: string) => (URL.canParse(url) ? new URL(url).host : url);

export function adapterSecurityReasons(before: TAdapter | null, after: TAdapter, credentialRef: string | null): string[] {
  const sends = credentialRef ? `; sends ${credentialRef}` : "";
  if (!before) return [`new ${after.kind} adapter calling ${hostOf(after.baseUrl)}${sends}`];
  const reasons: string[] = [];
  if (before.kind !== after.kind) reasons.push(`kind ${before.kind} → ${after.kind}`);
  if (before.baseUrl !== after.baseUrl) reasons.push(`base URL ${before.baseUrl} → ${after.baseUrl}${sends}`);
  if (JSON.stringify(before.options) !== JSON.stringify(after.options)) reasons.push("request templates (method, path, headers, body) changed");
  return reasons;
}

/** A credential reference outside the secrets namespace, as the 422's fields. */
export function credentialRefErrors(ref: string | null, path: string, env: Readonly<Record<string, string | undefined>> = process.env): TFieldError[] {
  const problem = ref === null ? null : credentialRefProblem(ref, secretNamespaceFromEnv(env));
  return problem ? [{ path, message: problem }] : [];
}

/** Literal secrets in an adapter's headers, as the 422's fields. */
export function adapterSecretErrors(adapter: TAdapter, prefix: string): TFieldError[] {
  return adapterHeaderProblems(adapter.options).map((h) => ({ path: `${prefix}options.headers.${h.name}`, message: h.message }));
}

const REVIEWER_ROLES = ROLES.filter((r) => roleGrants(r, "catalog.approve_compliance"));

/**
 * Whether someone other than the actor is, or was, a reviewer: then a security-class change waits
 * for one. Disabled reviewers count, and so do people whose reviewer role was taken away (the audit
 * log's user.set_roles), so an admin cannot return to the single-reviewer state by disabling or
 * demoting the others; the change then waits until a reviewer is enabled again or granted, which
 * takes a second admin where one exists.
 */
export async function otherReviewerExists(tx: Prisma.TransactionClient, actor: TActor): Promise<boolean> {
  const people = isDemoMode() ? {} : { demo: false };
  const current = await tx.user.count({
    where: { roles: { hasSome: [...REVIEWER_ROLES] }, ...(actor.userId ? { id: { not: actor.userId } } : {}), ...people },
  });
  if (current > 0) return true;
  const demoted = await tx.auditEntry.findMany({
    where: { action: "user.set_roles", targetType: "user", OR: REVIEWER_ROLES.map((r) => ({ before: { path: ["roles"], array_contains: [r] } })) },
    select: { targetId: true },
    distinct: ["targetId"],
  });
  const ids = demoted.map((d) => d.targetId).filter((id): id is string => id !== null && id !== actor.userId);
  return ids.length > 0 && (await tx.user.count({ where: { id: { in: ids }, ...people } })) > 0;
}
