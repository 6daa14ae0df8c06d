import { withPermission } from "@/lib/auth/with-permission";
import { getCatalog } from "@/lib/catalog/get-catalog";

/** The whole catalogue: providers (credential state, adapter, policies naming them), operations, pending changes. */
export const GET = withPermission("catalog.read", async ({ prisma }) => Response.json(await getCatalog(prisma)));
