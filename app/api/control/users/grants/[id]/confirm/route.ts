import { readJson, withPermission } from "@/lib/auth/with-permission";
import { ZDecideRoleGrantBody, confirmRoleGrant } from "@/lib/controlplane/role-grants/confirm-role-grant";
import { parseInput } from "@/lib/errors/api-errors";

export const POST = withPermission("user.set_roles", async ({ req, prisma, actor, params }) => {
  const body = parseInput(ZDecideRoleGrantBody, await readJson(req));
  return Response.json(await confirmRoleGrant(prisma, actor, params.id ?? "", body));
});
