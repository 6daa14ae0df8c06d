import { z } from "zod";
import { readJson, withPermission } from "@/lib/auth/with-permission";
import { parseInput } from "@/lib/errors/api-errors";
import { revokeUserSessions } from "@/lib/controlplane/users/revoke-user-sessions";

const ZRevokeSessionsBody = z.strictObject({ reason: z.string().max(2000).optional() });

export const POST = withPermission("user.revoke_sessions", async ({ req, prisma, actor, params }) => {
  const { reason } = parseInput(ZRevokeSessionsBody, await readJson(req));
  return Response.json(await revokeUserSessions(prisma, actor, params.id ?? "", reason ?? null));
});
