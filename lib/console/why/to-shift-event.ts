import "server-only";
import type { TEvidence, TShiftEvent, TShares } from "../types";

export type TShiftEventRow = {
  id: bigint;
  at: Date;
  operationKey: string;
  region: string;
  type: string;
  providerKey: string | null;
  leaderFrom: string | null;
  leaderTo: string | null;
  sharesFrom: unknown;
  sharesTo: unknown;
  capped: boolean;
  detail: string;
  evidence: unknown;
  policyVersion: string | null;
};

/** A ShiftEvent row as the console's JSON shape (bigint id and dates made JSON-safe). */
export function toShiftEvent(r: TShiftEventRow): TShiftEvent {
  return {
    id: r.id.toString(),
    at: r.at.getTime(),
    operation: r.operationKey,
    region: r.region,
    type: r.type,
    provider: r.providerKey,
    leaderFrom: r.leaderFrom,
    leaderTo: r.leaderTo,
    sharesFrom: (r.sharesFrom ?? {}) as TShares,
    sharesTo: (r.sharesTo ?? {}) as TShares,
    capped: r.capped,
    detail: r.detail,
    evidence: Array.isArray(r.evidence) ? (r.evidence as TEvidence[]) : [],
    policyVersion: r.policyVersion,
  };
}
