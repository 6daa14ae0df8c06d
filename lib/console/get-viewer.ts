import "server-only";
import { cache } from "react";
import { cookies } from "next/headers";
import { getPrisma } from "@/lib/db";
import { permissionsOf, type TPermission, SESSION_COOKIE, resolveSession } from "@/lib/auth";

export type TViewer = { id: string; email: string; name: string; roles: string[]; permissions: TPermission[] } | null;

/**
 * The signed-in user and what their roles grant, so pages render only the controls the user may
 * use. Hiding is a courtesy: governance's route handlers re-check every call. Cached per
 * request: the console layout, the header and the page all ask.
 */
export const getViewer = cache(async (): Promise<TViewer> => {
  const token = (await cookies()).get(SESSION_COOKIE)?.value;
  // No cookie, no database round trip (and none while Next prerenders static pages).
  if (!token) return null;
  const principal = await resolveSession(getPrisma(), token);
  if (!principal) return null;
  return { id: principal.userId, email: principal.email, name: principal.name, roles: principal.roles, permissions: permissionsOf(principal.roles) };
});

export function can(viewer: TViewer, permission: TPermission): boolean {
  return viewer?.permissions.includes(permission) ?? false;
}
