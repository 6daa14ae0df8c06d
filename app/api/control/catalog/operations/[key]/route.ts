import { readJson, withPermission } from "@/lib/auth/with-permission";
import { getCatalog } from "@/lib/catalog/get-catalog";
import { ZOperationPatch } from "@/lib/catalog/schemas";
import { updateOperation } from "@/lib/catalog/update-operation";
import { notFound, parseInput } from "@/lib/errors/api-errors";

export const GET = withPermission("catalog.read", async ({ prisma, params }) => {
  const operation = (await getCatalog(prisma)).operations.find((o) => o.key === params.key);
  if (!operation) throw notFound("operation", params.key ?? "");
  return Response.json({ operation });
});

/** Edits (also disables with {enabled: false}); 202 when a change to regional requirements waits for compliance. */
export const PATCH = withPermission("catalog.edit", async ({ req, prisma, actor, params }) => {
  const result = await updateOperation(prisma, actor, params.key ?? "", parseInput(ZOperationPatch, await readJson(req)));
  return Response.json(result, { status: result.status === "pending" ? 202 : 200 });
});
