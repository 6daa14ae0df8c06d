import { z } from "zod";
import type { PrismaClient } from "../db";
import { type TActor, appendAudit } from "../audit";
import { ContractError, notFound } from "../errors";
import { enqueueNotification } from "../notify/index";
import { toRecord } from "./rows";
import { incidentUrl } from "./track-incidents";
import type { TIncidentRecord } from "./types";

export const ZCloseIncidentBody = z.strictObject({ reason: z.string().trim().min(3, "say why the incident is closed").max(2000) });

/**
 * An operator closes an open incident: its end, with who and why, the audit entry and the
 * resolve notification commit together. Facts that follow start a new incident if they trigger one.
 */
export async function closeIncident(prisma: PrismaClient, actor: TActor, id: string, reason: string, now = new Date()): Promise<TIncidentRecord> {
  return prisma.$transaction(async (tx) => {
    const before = await tx.incident.findUnique({ where: { id } });
    if (!before) throw notFound("incident", id);
    const closed = await tx.incident.updateMany({
      where: { id, endedAt: null },
      data: { endedAt: now, endReason: "operator", endedById: actor.userId, state: "resolved", updatedAt: now, lastFactAt: now },
    });
    if (closed.count === 0) throw new ContractError("already_resolved", `incident ${id} is already resolved (${before.endReason ?? ""})`);
    await tx.incidentFact.create({
      data: {
        incidentId: id,
        at: now,
        kind: "close",
        providerKey: null,
        summary: `${actor.label} closed it: ${reason}`,
        data: { reason },
        source: `close:${id}`,
      },
    });
    const after = toRecord(await tx.incident.findUniqueOrThrow({ where: { id } }));
    await appendAudit(
      tx,
      actor,
      { action: "incident.close", targetType: "incident", targetId: id, before: { state: before.state }, after: { state: after.state }, reason },
      now,
    );
    await enqueueNotification(
      tx,
      {
        kind: "incident.resolved",
        incidentId: id,
        operation: after.operation,
        region: after.region,
        provider: after.provider,
        severity: after.severity,
        title: after.title,
        cause: after.causeDetail,
        startedAt: new Date(after.startedAt),
        endedAt: now,
        url: incidentUrl(id),
      },
      now,
    );
    return after;
  });
}
