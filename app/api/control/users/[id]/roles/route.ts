import { readJson, withPermission } from "@/lib/auth/with-permission";
import { parseInput } from "@/lib/errors/api-errors";
import { ZSetUserRolesBody, setUserRoles } from "@/lib/controlplane/users/set-user-roles";

/** 200 when every role applied; 202 when privileged roles wait in pendingGrant for a second admin. */
export const PUT = withPermission("user.set_roles", async ({ req, prisma, actor, params }) => {
  const body = parseInput(ZSetUserRolesBody, await readJson(req));
  const result = await setUserRoles(prisma, actor, params.id ?? "", body);
  return Response.json(result, { status: result.pendingGrant ? 202 : 200 });
});
