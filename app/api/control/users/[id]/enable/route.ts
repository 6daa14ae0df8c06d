import { readJson, withPermission } from "@/lib/auth/with-permission";
import { parseInput } from "@/lib/errors/api-errors";
import { ZDisableUserBody } from "@/lib/controlplane/users/disable-user";
import { enableUser } from "@/lib/controlplane/users/enable-user";

export const POST = withPermission("user.disable", async ({ req, prisma, actor, params }) => {
  const { reason } = parseInput(ZDisableUserBody, await readJson(req));
  return Response.json(await enableUser(prisma, actor, params.id ?? "", reason ?? null));
});
