import { factorListToYaml, type TFactorList } from "@/router-core/index";
import { queryOf, withPermission } from "@/lib/auth/with-permission";
import { getFactorListVersion } from "@/lib/controlplane/factor-lists/get-factor-list-version";

/**
 * Exports a version as YAML in the paper's Listing 1 format: as its author wrote it, or with
 * ?canonical=1 with every default filled in (what the router actually runs).
 */
export const GET = withPermission("factor_list.read", async ({ req, prisma, params }) => {
  const { version } = await getFactorListVersion(prisma, params.id ?? "");
  const yaml = queryOf(req).canonical === "1" ? factorListToYaml(version.document as unknown as TFactorList) : version.yaml;
  return new Response(yaml, {
    headers: {
      "content-type": "application/yaml; charset=utf-8",
      "content-disposition": `attachment; filename="${version.operationKey}-v${version.version}.yaml"`,
    },
  });
});
