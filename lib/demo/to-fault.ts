import type { DemoFault } from "../db";
import { FAULT_KINDS, type TFault, type TFaultKind } from "./fault-model";

export type TFaultRow = TFault & { endedAt: number | null; createdBy: string; createdAt: number };

/** A stored fault as the simulator and the console use it; ending early shows as an earlier endsAt. */
export function toFault(row: DemoFault): TFaultRow {
  const kind = (FAULT_KINDS as readonly string[]).includes(row.kind) ? (row.kind as TFaultKind) : "outage";
  const endedAt = row.endedAt?.getTime() ?? null;
  return {
    id: row.id,
    provider: row.providerKey,
    region: row.region,
    kind,
    magnitude: row.magnitude,
    startsAt: row.startsAt.getTime(),
    endsAt: Math.min(row.endsAt.getTime(), endedAt ?? Infinity),
    endedAt,
    createdBy: row.createdBy,
    createdAt: row.createdAt.getTime(),
  };
}
