import { randomUUID } from "node:crypto";
import type { Prisma, PrismaClient } from "../db";
import { enqueueNotification } from "../notify/index";
import { applyFacts, working, type TWorkingIncident } from "./apply-facts";
import { readFacts, type TCursor } from "./read-facts";
import { toRecord, toStep } from "./rows";
import type { TIncidentRecord, TStep } from "./types";

/** Facts older than this when first read (a first start on old history) record incidents without paging anyone. */
export const NOTIFY_HORIZON_MS = 10 * 60_000;
const CURSOR_ID = 1;

export type TTrackResult = { facts: number; opened: number; updated: number; resolved: number; notified: number };

export function incidentUrl(id: string): string {
  return `/incidents/${id}`;
}

function stepData(s: TStep) {
  return {
    phase: s.phase,
    providerKey: s.provider,
    firstType: s.firstType,
    lastType: s.lastType,
    ticks: s.ticks,
    capped: s.capped,
    sharesFrom: s.sharesFrom,
    sharesTo: s.sharesTo,
    detail: s.detail,
    startedAt: new Date(s.startedAt),
    endedAt: new Date(s.endedAt),
    firstEvent: BigInt(s.firstEvent),
    lastEvent: BigInt(s.lastEvent),
  };
}

function recordData(r: TIncidentRecord, now: Date) {
  return {
    operationKey: r.operation,
    region: r.region,
    providerKey: r.provider,
    state: r.state,
    severity: r.severity,
    title: r.title,
    causeKind: r.causeKind,
    causeDetail: r.causeDetail,
    causeSource: r.causeSource,
    causeEvidence: r.causeEvidence as Prisma.InputJsonValue,
    startedAt: new Date(r.startedAt),
    recoveredAt: r.recoveredAt === null ? null : new Date(r.recoveredAt),
    failbackDoneAt: r.failbackDoneAt === null ? null : new Date(r.failbackDoneAt),
    endedAt: r.endedAt === null ? null : new Date(r.endedAt),
    endReason: r.endReason,
    lastFactAt: new Date(r.lastFactAt),
    updatedAt: now,
  };
}

/** The notification events of one incident's changes: opened, updated (new step, recovery, a better cause), resolved. */
export function notificationsOf(w: TWorkingIncident): ("incident.opened" | "incident.updated" | "incident.resolved")[] {
  const out: ("incident.opened" | "incident.updated" | "incident.resolved")[] = [];
  if (w.opened) out.push("incident.opened");
  else if (w.changes.length > 0 && !w.resolved) out.push("incident.updated");
  if (w.resolved) out.push("incident.resolved");
  return out;
}

async function writeIncident(tx: Prisma.TransactionClient, w: TWorkingIncident, now: Date): Promise<void> {
  if (w.discard) {
    if (w.isNew) return;
    await tx.incidentFact.deleteMany({ where: { incidentId: w.record.id } });
    await tx.incident.delete({ where: { id: w.record.id } });
    return;
  }
  const data = recordData(w.record, now);
  if (w.isNew) await tx.incident.create({ data: { id: w.record.id, ...data } });
  else await tx.incident.update({ where: { id: w.record.id }, data });
  if (w.extended && w.lastStep) await tx.incidentStep.update({ where: { id: w.lastStep.id }, data: stepData(w.lastStep) });
  if (w.newSteps.length > 0)
    await tx.incidentStep.createMany({ data: w.newSteps.map((s) => ({ id: s.id, incidentId: w.record.id, seq: s.seq, ...stepData(s) })) });
  if (w.newFacts.length > 0) {
    await tx.incidentFact.createMany({
      data: w.newFacts.map((f) => ({
        incidentId: w.record.id,
        at: new Date(f.at),
        kind: f.kind,
        providerKey: f.provider,
        summary: f.summary,
        data: f.data as Prisma.InputJsonValue,
        source: f.source,
      })),
      skipDuplicates: true,
    });
  }
}

async function notify(tx: Prisma.TransactionClient, w: TWorkingIncident, now: Date): Promise<number> {
  // An activation notifies as policy.activated already (lib/controlplane); its incident only groups the moves that follow.
  if (w.discard || w.record.causeKind === "policy_activation" || now.getTime() - w.record.lastFactAt > NOTIFY_HORIZON_MS) return 0;
  const r = w.record;
  let sent = 0;
  for (const kind of notificationsOf(w)) {
    await enqueueNotification(
      tx,
      {
        kind,
        incidentId: r.id,
        operation: r.operation,
        region: r.region,
        provider: r.provider,
        severity: r.severity,
        title: r.title,
        cause: r.causeDetail,
        startedAt: new Date(r.startedAt),
        endedAt: r.endedAt === null ? null : new Date(r.endedAt),
        url: incidentUrl(r.id),
      },
      now,
    );
    sent++;
  }
  return sent;
}

async function lockCursor(tx: Prisma.TransactionClient): Promise<TCursor> {
  await tx.incidentCursor.createMany({ data: [{ id: CURSOR_ID }], skipDuplicates: true });
  // The row lock makes a second writer (a deposed leader still finishing a tick) wait and then read the advanced cursor.
  const rows = await tx.$queryRaw<{ shift_event_id: bigint; breaker_event_id: bigint; audit_seq: number }[]>`
    select shift_event_id, breaker_event_id, audit_seq from incident_cursor where id = ${CURSOR_ID} for update`;
  const c = rows[0]!;
  return { shiftEventId: BigInt(c.shift_event_id), breakerEvent: BigInt(c.breaker_event_id), auditSeq: Number(c.audit_seq) };
}

async function loadOpen(tx: Prisma.TransactionClient): Promise<TWorkingIncident[]> {
  const open = await tx.incident.findMany({ where: { endedAt: null }, orderBy: { startedAt: "asc" } });
  if (open.length === 0) return [];
  const steps = await tx.incidentStep.findMany({
    where: { incidentId: { in: open.map((i) => i.id) } },
    orderBy: [{ incidentId: "asc" }, { seq: "desc" }],
    distinct: ["incidentId"],
  });
  return open.map((i) => working(toRecord(i), steps.find((s) => s.incidentId === i.id) ? toStep(steps.find((s) => s.incidentId === i.id)!) : null));
}

/**
 * Reads the facts since the last run (shift events, breaker transitions, overrides and
 * activations from the audit log), applies them to the open incidents and writes the result,
 * the notifications and the advanced cursor in one transaction. The controller leader calls it
 * after each tick; the cursor's row lock and the advance in the same transaction make a second
 * caller apply nothing twice, so writes are idempotent whoever calls.
 */
export async function trackIncidents(prisma: PrismaClient, now = new Date(), newId: () => string = randomUUID): Promise<TTrackResult> {
  return prisma.$transaction(
    async (tx) => {
      const cursor = await lockCursor(tx);
      const { facts, next } = await readFacts(tx, cursor);
      const changed = applyFacts(await loadOpen(tx), facts, now.getTime(), { newId });
      let notified = 0;
      for (const w of changed) {
        await writeIncident(tx, w, now);
        notified += await notify(tx, w, now);
      }
      await tx.incidentCursor.update({
        where: { id: CURSOR_ID },
        data: { shiftEventId: next.shiftEventId, breakerEvent: next.breakerEvent, auditSeq: next.auditSeq, updatedAt: now },
      });
      return {
        facts: facts.length,
        opened: changed.filter((w) => w.opened).length,
        updated: changed.filter((w) => !w.opened && !w.resolved).length,
        resolved: changed.filter((w) => w.resolved).length,
        notified,
      };
    },
    { timeout: 30_000 },
  );
}
