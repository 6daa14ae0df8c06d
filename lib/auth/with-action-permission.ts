import { cookies, headers } from "next/headers";
import { getPrisma } from "../db/client";
import type { PrismaClient } from "../db/generated/client";
import type { TActor } from "../audit/actor";
import { ControlPlaneError, busy, isTransactionStartTimeout, type TFieldError } from "../errors/api-errors";
import { rolesGrant, type TPermission } from "./permissions";
import { registerHandler } from "./route-registry";
import { SESSION_COOKIE, resolveSession, type TUserPrincipal } from "./session";
import { actorOf } from "./with-permission";

export type TActionContext = { prisma: PrismaClient; principal: TUserPrincipal; actor: TActor };
export type TActionResult<R> = { ok: true; value: R } | { ok: false; status: number; code: string; message: string; fields: TFieldError[] };

/**
 * The server-action twin of withPermission: the permission is declared up front and checked
 * before the action body runs; refusals come back as values (a form shows them) instead of
 * throwing. Next already refuses actions whose Origin is not this host (CSRF).
 */
export function withActionPermission<A extends unknown[], R>(permission: TPermission, fn: (ctx: TActionContext, ...args: A) => Promise<R>) {
  const action = async (...args: A): Promise<TActionResult<R>> => {
    const prisma = getPrisma();
    const principal = await resolveSession(prisma, (await cookies()).get(SESSION_COOKIE)?.value);
    if (!principal) return { ok: false, status: 401, code: "unauthenticated", message: "sign in first", fields: [] };
    if (!rolesGrant(principal.roles, permission)) {
      return { ok: false, status: 403, code: "forbidden", message: `your roles do not grant ${permission}`, fields: [] };
    }
    try {
      return { ok: true, value: await fn({ prisma, principal, actor: actorOf(principal, await headers()) }, ...args) };
    } catch (caught) {
      const err = isTransactionStartTimeout(caught) ? busy() : caught;
      if (err instanceof ControlPlaneError) return { ok: false, status: err.status, code: err.code, message: err.message, fields: err.fields };
      throw err;
    }
  };
  registerHandler(action, permission, "action");
  return action;
}
