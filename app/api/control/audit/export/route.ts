import { queryOf, withPermission } from "@/lib/auth/with-permission";
import { auditToCsv, auditToJson } from "@/lib/audit/export-audit";
import { ZAuditQuery, listAudit } from "@/lib/audit/list-audit";
import { parseInput } from "@/lib/errors/api-errors";

/** The same filters as the list; ?format=csv or json (default), up to 10,000 entries per file. */
export const GET = withPermission("audit.export", async ({ req, prisma }) => {
  const { format, ...filters } = queryOf(req);
  const rows = await listAudit(prisma, parseInput(ZAuditQuery, { limit: "10000", ...filters }));
  const csv = format === "csv";
  return new Response(csv ? auditToCsv(rows) : auditToJson(rows), {
    headers: {
      "content-type": csv ? "text/csv; charset=utf-8" : "application/json; charset=utf-8",
      "content-disposition": `attachment; filename="switchyard-audit.${csv ? "csv" : "json"}"`,
    },
  });
});
