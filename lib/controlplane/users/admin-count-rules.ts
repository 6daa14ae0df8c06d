import type { Prisma } from "../../db";
import type { TActor } from "../../audit";
import { isDemoMode, type TRole } from "../../auth";
import { ContractError } from "../../errors";

/**
 * Roles that put policy live or hand out roles: with two or more admins, granting one takes a
 * second admin's confirmation (issue 25, item 2).
 */
export const PRIVILEGED_ROLES: readonly TRole[] = ["admin", "approver", "compliance"];

/** Serialises role changes, so two admins acting at once cannot both pass a check on the admin count. */
export async function lockUserRoles(tx: Prisma.TransactionClient): Promise<void> {
  await tx.$executeRaw`select pg_advisory_xact_lock(hashtext('switchyard:user_roles'))`;
}

/** Admins who can sign in: enabled, and demo users only in demo mode. */
export function countAdmins(tx: Prisma.TransactionClient): Promise<number> {
  return tx.user.count({ where: { roles: { has: "admin" }, disabledAt: null, ...(isDemoMode() ? {} : { demo: false }) } });
}

export function refuseOwnRoles(actor: TActor, userId: string): void {
  if (actor.userId !== null && actor.userId === userId) {
    throw new ContractError("own_roles", "nobody changes their own roles: ask another admin");
  }
}

/** Splits requested roles into those that apply now and privileged ones that must wait for a second admin. */
export function splitGrant(current: readonly TRole[], requested: readonly TRole[], needsSecondAdmin: boolean) {
  const wanted = [...new Set(requested)];
  const held = needsSecondAdmin ? wanted.filter((r) => PRIVILEGED_ROLES.includes(r) && !current.includes(r)) : [];
  const added = wanted.filter((r) => PRIVILEGED_ROLES.includes(r) && !current.includes(r));
  return { now: wanted.filter((r) => !held.includes(r)), held, added };
}
