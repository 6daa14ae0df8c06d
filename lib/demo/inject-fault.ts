import type { PrismaClient } from "../db";
import { type TActor, appendAudit } from "../audit";
import { ContractError } from "../errors";
import { defaultMagnitude, type TInjectFault } from "./fault-model";
import { toFault, type TFaultRow } from "./to-fault";

/**
 * Records a simulated fault, audited like any other change an admin makes. The provider must
 * exist and serve the region, so the fault can actually show up in routing.
 */
export async function injectFault(prisma: PrismaClient, actor: TActor, input: TInjectFault, now = new Date()): Promise<TFaultRow> {
  return prisma.$transaction(async (tx) => {
    const provider = await tx.provider.findUnique({ where: { key: input.provider } });
    if (!provider) throw new ContractError("unknown_provider", `no provider "${input.provider}"`);
    if (!provider.supportedRegions.includes(input.region)) {
      throw new ContractError("region_not_served", `${input.provider} does not serve ${input.region} (it serves ${provider.supportedRegions.join(", ")})`);
    }
    const row = await tx.demoFault.create({
      data: {
        providerKey: input.provider,
        region: input.region,
        kind: input.kind,
        magnitude: input.magnitude ?? defaultMagnitude(input.kind),
        startsAt: now,
        endsAt: new Date(now.getTime() + input.durationSeconds * 1000),
        createdBy: actor.label,
      },
    });
    await appendAudit(tx, actor, { action: "demo.fault_inject", targetType: "demo_fault", targetId: row.id, after: row }, now);
    return toFault(row);
  });
}
