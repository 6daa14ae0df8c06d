import type { PrismaClient } from "../db";
import type { TErrorCode } from "../http";
import { isDemoMode } from "./demo-mode";
import { rolesGrant, type TPermission, type TRole } from "./permissions";

export type TKeyOwner = { userId: string; email: string; roles: TRole[] };
export type TKeyOwnerResult = { ok: true; owner: TKeyOwner } | { ok: false; status: 401 | 403; code: TErrorCode; reason: string };

/**
 * A control-plane call made with an API key acts for the person who created the key, with at
 * most that person's permissions as they are now: the owner's row is read on every call (no
 * cache), so demoting the owner narrows the key and disabling them stops it at the next call.
 * A key without an owner (created by the operator's tools, or before owners were recorded)
 * holds no control-plane permission; the bootstrap SWITCHYARD_API_KEY never reaches these routes.
 */
export async function resolveKeyOwner(prisma: Pick<PrismaClient, "apiKey" | "user">, apiKeyId: string, permission: TPermission): Promise<TKeyOwnerResult> {
  const key = await prisma.apiKey.findUnique({ where: { id: apiKeyId }, select: { createdById: true, prefix: true } });
  const prefix = key?.prefix ?? "?";
  const owner = key?.createdById
    ? await prisma.user.findUnique({ where: { id: key.createdById }, select: { id: true, email: true, roles: true, disabledAt: true, demo: true } })
    : null;
  if (!owner) return { ok: false, status: 403, code: "forbidden", reason: `API key ${prefix} has no owner, so it holds no control-plane permission` };
  if (owner.disabledAt || (owner.demo && !isDemoMode())) {
    return { ok: false, status: 401, code: "unauthenticated", reason: `API key ${prefix} belongs to a disabled user` };
  }
  if (!rolesGrant(owner.roles, permission)) {
    return {
      ok: false,
      status: 403,
      code: "forbidden",
      reason: `API key ${prefix} acts for ${owner.email}, whose roles (${owner.roles.join(", ") || "none"}) do not grant ${permission}`,
    };
  }
  return { ok: true, owner: { userId: owner.id, email: owner.email, roles: owner.roles } };
}
