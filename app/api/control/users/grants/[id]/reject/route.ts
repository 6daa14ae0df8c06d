import { readJson, withPermission } from "@/lib/auth/with-permission";
import { ZDecideRoleGrantBody } from "@/lib/controlplane/role-grants/confirm-role-grant";
import { parseInput } from "@/lib/errors/api-errors";
import { rejectRoleGrant } from "@/lib/controlplane/role-grants/reject-role-grant";

export const POST = withPermission("user.set_roles", async ({ req, prisma, actor, params }) => {
  const body = parseInput(ZDecideRoleGrantBody, await readJson(req));
  return Response.json({ grant: await rejectRoleGrant(prisma, actor, params.id ?? "", body) });
});
