import { readJson, withPermission } from "@/lib/auth/with-permission";
import { ZReviewBody, approveFactorList } from "@/lib/controlplane/factor-lists/approve-factor-list";
import { parseInput } from "@/lib/errors/api-errors";

export const POST = withPermission("factor_list.approve", async ({ req, prisma, actor, params }) => {
  const { comment } = parseInput(ZReviewBody, await readJson(req));
  return Response.json(await approveFactorList(prisma, actor, params.id ?? "", "approver", comment));
});
