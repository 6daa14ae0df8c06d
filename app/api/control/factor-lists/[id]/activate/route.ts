import { readJson, withPermission } from "@/lib/auth/with-permission";
import { ZPointerBody, activateFactorList } from "@/lib/controlplane/factor-lists/activate-factor-list";
import { parseInput } from "@/lib/errors/api-errors";

export const POST = withPermission("factor_list.activate", async ({ req, prisma, actor, params }) => {
  const body = parseInput(ZPointerBody, await readJson(req));
  return Response.json({ version: await activateFactorList(prisma, actor, params.id ?? "", body) });
});
