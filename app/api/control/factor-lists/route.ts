import { queryOf, readJson, withPermission } from "@/lib/auth/with-permission";
import { createFactorListDraft } from "@/lib/controlplane/factor-lists/create-factor-list-draft";
import { parseInput } from "@/lib/errors/api-errors";
import { ZFactorListSource } from "@/lib/controlplane/factor-lists/factor-list-input";
import { ZListVersionsQuery, listFactorListVersions } from "@/lib/controlplane/factor-lists/list-factor-list-versions";

export const GET = withPermission("factor_list.read", async ({ req, prisma }) => {
  const q = parseInput(ZListVersionsQuery, queryOf(req));
  return Response.json({ versions: await listFactorListVersions(prisma, q) });
});

/** Imports a factor list as a draft: a raw YAML body (Content-Type application/yaml), or JSON {yaml | document, changeNote}. */
export const POST = withPermission("factor_list.create", async ({ req, prisma, actor }) => {
  const isYaml = /yaml/i.test(req.headers.get("content-type") ?? "");
  const input = isYaml ? { yaml: await req.text(), changeNote: queryOf(req).changeNote ?? "" } : await readJson(req);
  const created = await createFactorListDraft(prisma, actor, parseInput(ZFactorListSource, input));
  return Response.json({ version: created }, { status: 201 });
});
