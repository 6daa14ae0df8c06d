import { readJson, withPermission } from "@/lib/auth/with-permission";
import { parseInput } from "@/lib/controlplane/errors";
import { ZSetUserRolesBody, setUserRoles } from "@/lib/controlplane/set-user-roles";

export const PUT = withPermission("user.set_roles", async ({ req, prisma, actor, params }) => {
  const body = parseInput(ZSetUserRolesBody, await readJson(req));
  return Response.json({ user: await setUserRoles(prisma, actor, params.id ?? "", body) });
});
