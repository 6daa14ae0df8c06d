import { readJson, withPermission } from "@/lib/auth/with-permission";
import { parseInput } from "@/lib/errors/api-errors";
import { ZRollbackBody, rollbackFactorList } from "@/lib/controlplane/factor-lists/rollback-factor-list";

/** Rolls the operation back to this (earlier, once active) version, as a new version. */
export const POST = withPermission("factor_list.rollback", async ({ req, prisma, actor, params }) => {
  const body = parseInput(ZRollbackBody, await readJson(req));
  return Response.json({ version: await rollbackFactorList(prisma, actor, params.id ?? "", body) }, { status: 201 });
});
