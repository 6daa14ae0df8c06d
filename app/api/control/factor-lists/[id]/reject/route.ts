import { readJson, withPermission } from "@/lib/auth/with-permission";
import { parseInput } from "@/lib/errors/api-errors";
import { ZRejectBody, rejectFactorList } from "@/lib/controlplane/factor-lists/reject-factor-list";

export const POST = withPermission("factor_list.reject", async ({ req, prisma, actor, principal, params }) => {
  const { comment } = parseInput(ZRejectBody, await readJson(req));
  const capacity = principal.roles.includes("approver") ? "approver" : "compliance";
  return Response.json({ version: await rejectFactorList(prisma, actor, params.id ?? "", capacity, comment) });
});
