import { readJson, withPermission } from "@/lib/auth/with-permission";
import { putCertification } from "@/lib/catalog/put-certification";
import { ZCertificationEntry } from "@/lib/catalog/schemas";
import { parseInput } from "@/lib/errors/api-errors";
import { deleteCertification } from "@/lib/catalog/delete-declaration";

/** Declares a certification or changes its description. */
export const PUT = withPermission("catalog.edit", async ({ req, prisma, actor, params }) => {
  const body = (await readJson(req)) as Record<string, unknown> | null;
  const input = parseInput(ZCertificationEntry, { ...(body && typeof body === "object" ? body : {}), name: params.name ?? "" });
  return Response.json(await putCertification(prisma, actor, input));
});

/** Removes a declared certification nothing names any more; 409 declaration_in_use lists what still does. */
export const DELETE = withPermission("catalog.edit", async ({ prisma, actor, params }) =>
  Response.json(await deleteCertification(prisma, actor, params.name ?? "")),
);
