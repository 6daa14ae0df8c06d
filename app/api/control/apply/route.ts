import { queryOf } from "@/lib/auth/with-permission";
import { withPermissionOrApiKey } from "@/lib/auth/with-permission-or-api-key";
import { applyBundle } from "@/lib/catalog/apply-bundle";
import { parseBundle } from "@/lib/catalog/bundle";

/**
 * Applies a bundle (YAML or JSON body); ?dryRun=1 answers the plan without changing anything.
 * What moves compliance is held and factor lists land in review, as through the API.
 */
export const POST = withPermissionOrApiKey("catalog.edit", "control", async ({ req, prisma, actor }) => {
  const dryRun = ["1", "true"].includes(queryOf(req).dryRun ?? "");
  const bundle = parseBundle(await req.text());
  return Response.json(await applyBundle(prisma, actor, bundle, { dryRun }));
});
