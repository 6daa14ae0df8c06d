import { readJson, withPermission } from "@/lib/auth/with-permission";
import { ZEndOverrideBody, endOverride } from "@/lib/controlplane/overrides/end-override";
import { parseInput } from "@/lib/errors/api-errors";

export const POST = withPermission("override.end", async ({ req, prisma, actor, params }) => {
  const { reason } = parseInput(ZEndOverrideBody, await readJson(req));
  return Response.json({ override: await endOverride(prisma, actor, params.id ?? "", reason) });
});
