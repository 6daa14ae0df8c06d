import { readJson, withPermission } from "@/lib/auth/with-permission";
import { createOperation } from "@/lib/catalog/create-operation";
import { getCatalog } from "@/lib/catalog/get-catalog";
import { ZOperation } from "@/lib/catalog/schemas";
import { parseInput } from "@/lib/errors/api-errors";

export const GET = withPermission("catalog.read", async ({ prisma }) => Response.json({ operations: (await getCatalog(prisma)).operations }));

export const POST = withPermission("catalog.edit", async ({ req, prisma, actor }) => {
  const input = parseInput(ZOperation, await readJson(req));
  return Response.json(await createOperation(prisma, actor, input), { status: 201 });
});
