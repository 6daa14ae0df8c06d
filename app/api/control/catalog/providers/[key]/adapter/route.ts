import { readJson, withPermission } from "@/lib/auth/with-permission";
import { deleteAdapter } from "@/lib/catalog/delete-adapter";
import { putAdapter } from "@/lib/catalog/put-adapter";
import { ZAdapter } from "@/lib/catalog/schemas";
import { parseInput } from "@/lib/errors/api-errors";

/** 202 when the change waits for a second person (lib/catalog/security-review.ts). */
export const PUT = withPermission("catalog.edit", async ({ req, prisma, actor, params }) => {
  const result = await putAdapter(prisma, actor, params.key ?? "", parseInput(ZAdapter, await readJson(req)));
  return Response.json(result, { status: result.status === "pending" ? 202 : 200 });
});

export const DELETE = withPermission("catalog.edit", async ({ prisma, actor, params }) => Response.json(await deleteAdapter(prisma, actor, params.key ?? "")));
