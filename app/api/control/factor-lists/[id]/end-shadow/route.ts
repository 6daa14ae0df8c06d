import { readJson, withPermission } from "@/lib/auth/with-permission";
import { ZPointerBody } from "@/lib/controlplane/factor-lists/activate-factor-list";
import { endShadow } from "@/lib/controlplane/factor-lists/end-shadow";
import { parseInput } from "@/lib/errors/api-errors";

export const POST = withPermission("factor_list.shadow", async ({ req, prisma, actor, params }) => {
  const body = parseInput(ZPointerBody, await readJson(req));
  return Response.json({ version: await endShadow(prisma, actor, params.id ?? "", body) });
});
