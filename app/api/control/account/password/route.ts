import { readJson, withPermission } from "@/lib/auth/with-permission";
import { parseInput } from "@/lib/errors/api-errors";
import { ZChangeOwnPasswordBody, changeOwnPassword } from "@/lib/controlplane/users/change-own-password";

/** Changes the signed-in person's password; needs the current one. Other sessions are signed out. */
export const POST = withPermission("account.change_password", async ({ req, prisma, actor, principal }) =>
  Response.json(await changeOwnPassword(prisma, actor, principal.sessionId, parseInput(ZChangeOwnPasswordBody, await readJson(req)))),
);
