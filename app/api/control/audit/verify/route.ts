import { withPermission } from "@/lib/auth/with-permission";
import { auditCheckpointDir, auditCheckpointFile, readAuditCheckpoints, type TAuditCheckpoint } from "@/lib/audit/checkpoints";
import { verifyAuditChain } from "@/lib/audit/verify-audit-chain";

// The console's check holds the chain against this server's checkpoints too, as audit:verify does.
export const GET = withPermission("audit.read", async ({ prisma }) => {
  let checkpoints: TAuditCheckpoint[];
  try {
    checkpoints = readAuditCheckpoints(auditCheckpointFile(auditCheckpointDir(), process.env.DATABASE_URL ?? ""));
  } catch (err) {
    return Response.json({ ok: false, entries: 0, firstBreak: { seq: 0, problem: "checkpoint_invalid", detail: (err as Error).message } });
  }
  return Response.json(await verifyAuditChain(prisma, { checkpoints }));
});
