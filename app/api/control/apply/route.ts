import { queryOf } from "@/lib/auth/with-permission";
import { withPermissionOrApiKey } from "@/lib/auth/with-permission-or-api-key";
import { applyBundle } from "@/lib/catalog/apply-bundle";
import { parseBundle } from "@/lib/catalog/bundle";

/**
 * Applies a bundle (YAML or JSON body) whole or not at all; ?dryRun=1 runs the same path and
 * rolls it back, answering what would apply, be held or be refused. What moves compliance is
 * held and factor lists land in review, as through the API.
 */
export const POST = withPermissionOrApiKey("catalog.edit", "control", async ({ req, prisma, actor }) => {
  const dryRun = ["1", "true"].includes(queryOf(req).dryRun ?? "");
  const bundle = parseBundle(await req.text());
  return Response.json(await applyBundle(prisma, actor, bundle, { dryRun }));
});
