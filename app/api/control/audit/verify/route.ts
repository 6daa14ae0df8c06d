import { withPermission } from "@/lib/auth/with-permission";
import { verifyAuditChain } from "@/lib/audit/verify-audit-chain";

export const GET = withPermission("audit.read", async ({ prisma }) => {
  return Response.json(await verifyAuditChain(prisma));
});
