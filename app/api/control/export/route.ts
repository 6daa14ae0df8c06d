import { queryOf } from "@/lib/auth/with-permission";
import { withPermissionOrApiKey } from "@/lib/auth/with-permission-or-api-key";
import { bundleToYaml } from "@/lib/catalog/bundle";
import { exportBundle } from "@/lib/catalog/export-bundle";

/** The running catalogue and active factor lists as a bundle: YAML, or JSON with ?format=json. Session or an API key with the control scope. */
export const GET = withPermissionOrApiKey("catalog.read", "control", async ({ req, prisma }) => {
  const bundle = await exportBundle(prisma);
  if (queryOf(req).format === "json") return Response.json(bundle);
  return new Response(bundleToYaml(bundle), { headers: { "content-type": "application/yaml; charset=utf-8" } });
});
