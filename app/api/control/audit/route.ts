import { queryOf, withPermission } from "@/lib/auth/with-permission";
import { ZAuditQuery, listAudit } from "@/lib/audit/list-audit";
import { parseInput } from "@/lib/errors/api-errors";

export const GET = withPermission("audit.read", async ({ req, prisma }) => {
  return Response.json({ entries: await listAudit(prisma, parseInput(ZAuditQuery, queryOf(req))) });
});
