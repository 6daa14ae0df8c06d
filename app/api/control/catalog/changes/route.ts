import { withPermission } from "@/lib/auth/with-permission";
import { listCatalogChanges } from "@/lib/catalog/list-catalog-changes";

export const GET = withPermission("catalog.read", async ({ req, prisma }) =>
  Response.json({ changes: await listCatalogChanges(prisma, new URL(req.url).searchParams.get("status")) }),
);
