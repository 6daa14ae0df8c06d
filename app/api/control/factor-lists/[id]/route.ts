import { readJson, withPermission } from "@/lib/auth/with-permission";
import { parseInput } from "@/lib/errors/api-errors";
import { ZFactorListSource } from "@/lib/controlplane/factor-lists/factor-list-input";
import { getFactorListVersion } from "@/lib/controlplane/factor-lists/get-factor-list-version";
import { updateFactorListDraft } from "@/lib/controlplane/factor-lists/update-factor-list-draft";

export const GET = withPermission("factor_list.read", async ({ prisma, params }) => {
  return Response.json(await getFactorListVersion(prisma, params.id ?? ""));
});

export const PATCH = withPermission("factor_list.edit", async ({ req, prisma, actor, params }) => {
  const body = parseInput(ZFactorListSource, await readJson(req));
  return Response.json({ version: await updateFactorListDraft(prisma, actor, params.id ?? "", body) });
});
