import { readJson, withPermission } from "@/lib/auth/with-permission";
import { ZPointerBody } from "@/lib/controlplane/factor-lists/activate-factor-list";
import { parseInput } from "@/lib/errors/api-errors";
import { shadowFactorList } from "@/lib/controlplane/factor-lists/shadow-factor-list";

export const POST = withPermission("factor_list.shadow", async ({ req, prisma, actor, params }) => {
  const body = parseInput(ZPointerBody, await readJson(req));
  return Response.json({ version: await shadowFactorList(prisma, actor, params.id ?? "", body) });
});
