import { readJson, withPermission } from "@/lib/auth/with-permission";
import { createProvider } from "@/lib/catalog/create-provider";
import { getCatalog } from "@/lib/catalog/get-catalog";
import { ZProvider } from "@/lib/catalog/schemas";
import { parseInput } from "@/lib/errors/api-errors";

export const GET = withPermission("catalog.read", async ({ prisma }) => Response.json({ providers: (await getCatalog(prisma)).providers }));

export const POST = withPermission("catalog.edit", async ({ req, prisma, actor }) => {
  const input = parseInput(ZProvider, await readJson(req));
  return Response.json(await createProvider(prisma, actor, input), { status: 201 });
});
