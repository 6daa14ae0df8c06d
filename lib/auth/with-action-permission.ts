import { cookies, headers } from "next/headers";
import { getPrisma, type PrismaClient } from "../db";
import type { TActor } from "../audit";
import { busy, isTransactionStartTimeout } from "../errors";
import { ContractError, errorBody, type TErrorBody } from "../http";
import { rolesGrant, type TPermission } from "./permissions";
import { registerHandler } from "./route-registry";
import { SESSION_COOKIE, resolveSession, type TUserPrincipal } from "./session";
import { actorOf } from "./with-permission";

export type TActionContext = { prisma: PrismaClient; principal: TUserPrincipal; actor: TActor };
/** A refusal is the error contract's body (docs/errors.md) with its status, as a value the form shows. */
export type TActionResult<R> = { ok: true; value: R } | ({ ok: false; status: number } & TErrorBody);

const refused = (status: number, body: TErrorBody): TActionResult<never> => ({ ok: false, status, ...body });

/**
 * The server-action twin of withPermission: the permission is declared up front and checked
 * before the action body runs; refusals come back as values (a form shows them) instead of
 * throwing. Next already refuses actions whose Origin is not this host (CSRF). Every action is a
 * form's (`useActionState`: the previous state, then the form's data).
 */
export function withActionPermission<R>(permission: TPermission, fn: (ctx: TActionContext, prev: unknown, form: FormData) => Promise<R>) {
  const action = async (prev: unknown, form: FormData): Promise<TActionResult<R>> => {
    const prisma = getPrisma();
    const principal = await resolveSession(prisma, (await cookies()).get(SESSION_COOKIE)?.value);
    if (!principal) return refused(401, errorBody("unauthenticated", "sign in first"));
    if (!rolesGrant(principal.roles, permission)) return refused(403, errorBody("forbidden", `your roles do not grant ${permission}`));
    // A same-origin caller can post any arguments, not only what the page's form sends.
    if (!(form instanceof FormData))
      return refused(400, errorBody("malformed", "this action takes a form's fields (multipart/form-data)", [{ path: "", message: "expected form data" }]));
    try {
      return { ok: true, value: await fn({ prisma, principal, actor: actorOf(principal, await headers()) }, prev, form) };
    } catch (caught) {
      const err = isTransactionStartTimeout(caught) ? busy() : caught;
      if (err instanceof ContractError) return refused(err.status, err.toBody());
      throw err;
    }
  };
  registerHandler(action, permission, "action");
  return action;
}
