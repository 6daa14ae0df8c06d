import { readJson, withPermission } from "@/lib/auth/with-permission";
import { approveCatalogChange } from "@/lib/catalog/approve-catalog-change";
import { ZReviewComment } from "@/lib/catalog/schemas";
import { parseInput } from "@/lib/errors/api-errors";

export const POST = withPermission("catalog.approve_compliance", async ({ req, prisma, actor, params }) => {
  const { comment } = parseInput(ZReviewComment, await readJson(req));
  return Response.json(await approveCatalogChange(prisma, actor, params.id ?? "", comment));
});
