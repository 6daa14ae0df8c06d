import type { PrismaClient } from "../../lib/db/client";
import { endFault } from "../../lib/demo/end-fault";
import { listFaults } from "../../lib/demo/list-faults";

/**
 * Ends every demo fault still in force. An outage spec that fails before it ends its own fault
 * would otherwise leave provider_A down for the fault's full duration, and the specs after it
 * would fail on that rather than on anything of their own.
 */
export async function endOpenFaults(prisma: PrismaClient, note: string): Promise<number> {
  const now = Date.now();
  const open = (await listFaults(prisma, 0, now)).filter((f) => f.endedAt === null && f.endsAt > now);
  for (const f of open) await endFault(prisma, { userId: null, label: note, ip: null }, f.id);
  return open.length;
}
