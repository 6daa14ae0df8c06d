import { readJson, withPermission } from "@/lib/auth/with-permission";
import { parseInput } from "@/lib/errors/api-errors";
import { ZDisableUserBody, disableUser } from "@/lib/controlplane/users/disable-user";

export const POST = withPermission("user.disable", async ({ req, prisma, actor, params }) =>
  Response.json(await disableUser(prisma, actor, params.id ?? "", parseInput(ZDisableUserBody, await readJson(req)))),
);
