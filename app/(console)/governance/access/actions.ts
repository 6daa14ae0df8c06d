"use server";

import { revalidatePath } from "next/cache";
import { withActionPermission } from "@/lib/auth/with-action-permission";
import { ZCreateApiKeyBody, createApiKey } from "@/lib/controlplane/api-keys/create-api-key";
import { ZDecideRoleGrantBody, confirmRoleGrant } from "@/lib/controlplane/role-grants/confirm-role-grant";
import { ZCreateUserBody, createUser } from "@/lib/controlplane/users/create-user";
import { ZChangeOwnPasswordBody, changeOwnPassword } from "@/lib/controlplane/users/change-own-password";
import { ZDisableUserBody, disableUser } from "@/lib/controlplane/users/disable-user";
import { enableUser } from "@/lib/controlplane/users/enable-user";
import { ZResetPasswordBody, resetUserPassword } from "@/lib/controlplane/users/reset-user-password";
import { parseInput } from "@/lib/errors/api-errors";
import { rejectRoleGrant } from "@/lib/controlplane/role-grants/reject-role-grant";
import { revokeApiKey } from "@/lib/controlplane/api-keys/revoke-api-key";
import { revokeUserSessions } from "@/lib/controlplane/users/revoke-user-sessions";
import { ZSetUserRolesBody, setUserRoles } from "@/lib/controlplane/users/set-user-roles";

// Forms post FormData; each action turns it into the same zod-validated body the API takes.
const text = (form: FormData, name: string) => String(form.get(name) ?? "").trim();
const list = (form: FormData, name: string) => form.getAll(name).map(String).filter(Boolean);

export const createApiKeyAction = withActionPermission("api_key.create", async ({ prisma, actor }, _prev: unknown, form: FormData) => {
  const body = parseInput(ZCreateApiKeyBody, {
    name: text(form, "name"),
    scopes: list(form, "scopes"),
    operationKeys: text(form, "operationKeys")
      .split(/[\s,]+/)
      .filter(Boolean),
  });
  const { key, apiKey } = await createApiKey(prisma, actor, body);
  revalidatePath("/governance/access");
  return { key, prefix: apiKey.prefix };
});

export const revokeApiKeyAction = withActionPermission("api_key.revoke", async ({ prisma, actor }, _prev: unknown, form: FormData) => {
  await revokeApiKey(prisma, actor, text(form, "id"), text(form, "reason") || null);
  revalidatePath("/governance/access");
  return null;
});

export const createUserAction = withActionPermission("user.create", async ({ prisma, actor }, _prev: unknown, form: FormData) => {
  const body = parseInput(ZCreateUserBody, {
    email: text(form, "email"),
    name: text(form, "name"),
    password: String(form.get("password") ?? ""),
    roles: list(form, "roles"),
  });
  const { user, pendingGrant } = await createUser(prisma, actor, body);
  revalidatePath("/governance/access");
  return { email: user.email, pendingRoles: pendingGrant?.roles ?? [] };
});

export const setUserRolesAction = withActionPermission("user.set_roles", async ({ prisma, actor }, _prev: unknown, form: FormData) => {
  const { pendingGrant } = await setUserRoles(prisma, actor, text(form, "id"), parseInput(ZSetUserRolesBody, { roles: list(form, "roles") }));
  revalidatePath("/governance/access");
  return { pendingRoles: pendingGrant?.roles ?? [] };
});

export const revokeUserSessionsAction = withActionPermission("user.revoke_sessions", async ({ prisma, actor }, _prev: unknown, form: FormData) => {
  const { revoked } = await revokeUserSessions(prisma, actor, text(form, "id"), null);
  revalidatePath("/governance/access");
  return { revoked };
});

export const confirmRoleGrantAction = withActionPermission("user.set_roles", async ({ prisma, actor }, _prev: unknown, form: FormData) => {
  await confirmRoleGrant(prisma, actor, text(form, "id"), parseInput(ZDecideRoleGrantBody, {}));
  revalidatePath("/governance/access");
  return null;
});

export const rejectRoleGrantAction = withActionPermission("user.set_roles", async ({ prisma, actor }, _prev: unknown, form: FormData) => {
  await rejectRoleGrant(prisma, actor, text(form, "id"), parseInput(ZDecideRoleGrantBody, {}));
  revalidatePath("/governance/access");
  return null;
});

export const changeOwnPasswordAction = withActionPermission("account.change_password", async ({ prisma, actor, principal }, _prev: unknown, form: FormData) => {
  const body = parseInput(ZChangeOwnPasswordBody, {
    currentPassword: String(form.get("currentPassword") ?? ""),
    newPassword: String(form.get("newPassword") ?? ""),
  });
  return changeOwnPassword(prisma, actor, principal.sessionId, body);
});

export const resetPasswordAction = withActionPermission("user.reset_password", async ({ prisma, actor }, _prev: unknown, form: FormData) => {
  const body = parseInput(ZResetPasswordBody, { password: String(form.get("password") ?? "") });
  const result = await resetUserPassword(prisma, actor, text(form, "id"), body);
  revalidatePath("/governance/access");
  return result;
});

export const disableUserAction = withActionPermission("user.disable", async ({ prisma, actor }, _prev: unknown, form: FormData) => {
  const result = await disableUser(prisma, actor, text(form, "id"), parseInput(ZDisableUserBody, { reason: text(form, "reason") || undefined }));
  revalidatePath("/governance/access");
  return result;
});

export const enableUserAction = withActionPermission("user.disable", async ({ prisma, actor }, _prev: unknown, form: FormData) => {
  const result = await enableUser(prisma, actor, text(form, "id"), null);
  revalidatePath("/governance/access");
  return result;
});
