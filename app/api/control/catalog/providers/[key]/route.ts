import { readJson, withPermission } from "@/lib/auth/with-permission";
import { deleteProvider } from "@/lib/catalog/delete-provider";
import { getCatalog } from "@/lib/catalog/get-catalog";
import { ZProviderPatch } from "@/lib/catalog/schemas";
import { updateProvider } from "@/lib/catalog/update-provider";
import { notFound, parseInput } from "@/lib/errors/api-errors";

export const GET = withPermission("catalog.read", async ({ prisma, params }) => {
  const provider = (await getCatalog(prisma)).providers.find((p) => p.key === params.key);
  if (!provider) throw notFound("provider", params.key ?? "");
  return Response.json({ provider });
});

/** Edits (also disables with {enabled: false}, renames with {key}); 202 when the change waits for compliance. */
export const PATCH = withPermission("catalog.edit", async ({ req, prisma, actor, params }) => {
  const result = await updateProvider(prisma, actor, params.key ?? "", parseInput(ZProviderPatch, await readJson(req)));
  return Response.json(result, { status: result.status === "pending" ? 202 : 200 });
});

export const DELETE = withPermission("catalog.edit", async ({ prisma, actor, params }) => Response.json(await deleteProvider(prisma, actor, params.key ?? "")));
