import "server-only";
import { cookies } from "next/headers";
import { getPrisma } from "@/lib/db/client";
import { permissionsOf, type TPermission } from "@/lib/auth/permissions";
import { SESSION_COOKIE, resolveSession } from "@/lib/auth/session";

export type TViewer = { email: string; name: string; roles: string[]; permissions: TPermission[] } | null;

/**
 * The signed-in user and what their roles grant, so pages render only the controls the user may
 * use. Hiding is a courtesy: governance's route handlers re-check every call.
 */
export async function getViewer(): Promise<TViewer> {
  const principal = await resolveSession(getPrisma(), (await cookies()).get(SESSION_COOKIE)?.value);
  if (!principal) return null;
  return { email: principal.email, name: principal.name, roles: principal.roles, permissions: permissionsOf(principal.roles) };
}

export function can(viewer: TViewer, permission: TPermission): boolean {
  return viewer?.permissions.includes(permission) ?? false;
}
