import type { Incident, IncidentStep } from "../db";
import type { TCauseKind, TIncidentRecord, TIncidentSeverity, TIncidentState, TShares, TStep, TStepPhase } from "./types";

const ms = (d: Date | null) => (d === null ? null : d.getTime());

/** A stored incident as the tracker and the pages read it. */
export function toRecord(i: Incident): TIncidentRecord {
  return {
    id: i.id,
    operation: i.operationKey,
    region: i.region,
    provider: i.providerKey,
    state: i.state as TIncidentState,
    severity: i.severity as TIncidentSeverity,
    title: i.title,
    causeKind: i.causeKind as TCauseKind,
    causeDetail: i.causeDetail,
    causeSource: i.causeSource,
    causeEvidence: (i.causeEvidence ?? {}) as Record<string, unknown>,
    startedAt: i.startedAt.getTime(),
    recoveredAt: ms(i.recoveredAt),
    failbackDoneAt: ms(i.failbackDoneAt),
    endedAt: ms(i.endedAt),
    endReason: i.endReason,
    lastFactAt: i.lastFactAt.getTime(),
  };
}

export function toStep(s: IncidentStep): TStep {
  return {
    id: s.id,
    seq: s.seq,
    phase: s.phase as TStepPhase,
    provider: s.providerKey,
    firstType: s.firstType,
    lastType: s.lastType,
    ticks: s.ticks,
    capped: s.capped,
    sharesFrom: s.sharesFrom as TShares,
    sharesTo: s.sharesTo as TShares,
    detail: s.detail,
    startedAt: s.startedAt.getTime(),
    endedAt: s.endedAt.getTime(),
    firstEvent: s.firstEvent.toString(),
    lastEvent: s.lastEvent.toString(),
  };
}
