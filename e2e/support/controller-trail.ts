import type { PrismaClient } from "../../lib/db/client";

/**
 * The controller's shift events and the stored incidents of one scope since `since`, one line
 * each, and the telemetry buckets behind them: what a failed outage or failback expectation
 * prints, so a run that went another way (a recovery aborted, a failback that stalled, an incident
 * split in two) says how from CI's log.
 */
export async function controllerTrail(prisma: PrismaClient, operation: string, region: string, since: number): Promise<string> {
  const [events, incidents, buckets] = await Promise.all([
    prisma.shiftEvent.findMany({ where: { operationKey: operation, region, at: { gte: new Date(since) } }, orderBy: { at: "asc" }, take: 400 }),
    prisma.incident.findMany({
      where: { operationKey: operation, region, OR: [{ endedAt: null }, { endedAt: { gte: new Date(since) } }] },
      orderBy: { startedAt: "asc" },
      take: 20,
    }),
    prisma.metricBucket.findMany({
      where: { operationKey: operation, region, bucketStart: { gte: new Date(since) } },
      orderBy: [{ providerKey: "asc" }, { bucketStart: "asc" }],
      take: 400,
    }),
  ]);
  const iso = (d: Date | null) => (d ? d.toISOString().slice(11, 23) : "open");
  return [
    `shift events of ${operation}/${region} since ${new Date(since).toISOString()}:`,
    ...events.map(
      (e) =>
        `  ${iso(e.at)} ${e.type} ${e.providerKey ?? "-"}${e.capped ? " capped" : ""} → ${JSON.stringify(e.sharesTo)} ${String(e.detail ?? "").slice(0, 240)}`,
    ),
    "incidents:",
    ...incidents.map(
      (i) =>
        `  ${i.id} ${i.causeKind} ${i.providerKey ?? "-"} ${iso(i.startedAt)} … ${iso(i.endedAt)} ${i.state} (${i.endReason ?? ""}) source ${i.causeSource}`,
    ),
    "metric buckets (calls / failed calls / provider_call failures / completions):",
    ...[...new Set(buckets.map((b) => b.providerKey))].map(
      (p) =>
        `  ${p}: ` +
        buckets
          .filter((b) => b.providerKey === p)
          .map((b) => `${iso(b.bucketStart).slice(0, 8)} ${b.calls}/${b.callFailures}/${b.failuresProviderCall}/${b.completions}`)
          .join(", "),
    ),
  ].join("\n");
}
