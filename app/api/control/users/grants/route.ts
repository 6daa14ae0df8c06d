import { queryOf, withPermission } from "@/lib/auth/with-permission";
import { invalid } from "@/lib/errors/api-errors";
import { listRoleGrants } from "@/lib/controlplane/role-grants/list-role-grants";

const STATUSES = ["pending", "confirmed", "applied", "rejected", "superseded"] as const;

/** Privileged role grants, newest first; ?status=pending for those waiting for a second admin. */
export const GET = withPermission("user.read", async ({ req, prisma }) => {
  const { status } = queryOf(req);
  if (status !== undefined && !STATUSES.includes(status as (typeof STATUSES)[number])) {
    throw invalid([{ path: "status", message: `status must be one of ${STATUSES.join(", ")}` }]);
  }
  return Response.json({ grants: await listRoleGrants(prisma, { status: status as (typeof STATUSES)[number] | undefined }) });
});
