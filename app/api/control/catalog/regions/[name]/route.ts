import { readJson, withPermission } from "@/lib/auth/with-permission";
import { putRegion } from "@/lib/catalog/put-region";
import { ZRegionEntry } from "@/lib/catalog/schemas";
import { parseInput } from "@/lib/errors/api-errors";
import { deleteRegion } from "@/lib/catalog/delete-declaration";

/** Declares a region or changes its rule ({requires}); 202 when dropping a requirement waits for compliance. */
export const PUT = withPermission("catalog.edit", async ({ req, prisma, actor, params }) => {
  const body = (await readJson(req)) as Record<string, unknown> | null;
  const input = parseInput(ZRegionEntry, { ...(body && typeof body === "object" ? body : {}), name: params.name ?? "" });
  const result = await putRegion(prisma, actor, input);
  return Response.json(result, { status: result.status === "pending" ? 202 : 200 });
});

/** Removes a declared region nothing names any more; 409 declaration_in_use lists what still does. */
export const DELETE = withPermission("catalog.edit", async ({ prisma, actor, params }) => Response.json(await deleteRegion(prisma, actor, params.name ?? "")));
