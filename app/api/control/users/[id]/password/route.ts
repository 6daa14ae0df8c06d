import { readJson, withPermission } from "@/lib/auth/with-permission";
import { parseInput } from "@/lib/errors/api-errors";
import { ZResetPasswordBody, resetUserPassword } from "@/lib/controlplane/users/reset-user-password";

/** An admin resets someone else's password (lib/controlplane/users/reset-user-password.ts). */
export const POST = withPermission("user.reset_password", async ({ req, prisma, actor, params }) =>
  Response.json(await resetUserPassword(prisma, actor, params.id ?? "", parseInput(ZResetPasswordBody, await readJson(req)))),
);
