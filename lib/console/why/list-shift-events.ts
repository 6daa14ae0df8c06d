import "server-only";
import { getPrisma } from "@/lib/db";
import { toShiftEvent } from "./to-shift-event";
import type { TShiftEvent } from "../types";

export type TShiftEventQuery = {
  operation?: string;
  region?: string;
  from?: number;
  to?: number;
  /** Leave out probe-floor bookkeeping, which fires on every tick a floor holds. */
  significantOnly?: boolean;
  limit: number;
};

/** Event types that only restate a floor being held; they would bury the moves on-call looks for. */
const ROUTINE = ["probe_floor_held"];

/** Shift events, newest first. */
export async function listShiftEvents(q: TShiftEventQuery): Promise<TShiftEvent[]> {
  const rows = await getPrisma().shiftEvent.findMany({
    where: {
      ...(q.operation ? { operationKey: q.operation } : {}),
      ...(q.region ? { region: q.region } : {}),
      ...(q.from !== undefined || q.to !== undefined
        ? { at: { ...(q.from !== undefined ? { gte: new Date(q.from) } : {}), ...(q.to !== undefined ? { lte: new Date(q.to) } : {}) } }
        : {}),
      ...(q.significantOnly ? { type: { notIn: ROUTINE } } : {}),
    },
    orderBy: [{ at: "desc" }, { id: "desc" }],
    take: q.limit,
  });
  return rows.map(toShiftEvent);
}
