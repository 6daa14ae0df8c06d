import { z } from "zod";
import { readJson, withPermission } from "@/lib/auth/with-permission";
import { parseInput } from "@/lib/errors/api-errors";
import { revokeApiKey } from "@/lib/controlplane/api-keys/revoke-api-key";

const ZRevokeBody = z.strictObject({ reason: z.string().max(2000).optional() });

export const POST = withPermission("api_key.revoke", async ({ req, prisma, actor, params }) => {
  const { reason } = parseInput(ZRevokeBody, await readJson(req));
  return Response.json({ apiKey: await revokeApiKey(prisma, actor, params.id ?? "", reason ?? null) });
});
