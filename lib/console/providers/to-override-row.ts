import "server-only";
import type { TOverrideRow } from "../types";

type TRow = {
  id: string;
  kind: TOverrideRow["kind"];
  operationKey: string | null;
  region: string | null;
  providerKey: string | null;
  reason: string;
  createdAt: Date;
  expiresAt: Date | null;
  endedAt: Date | null;
  endReason: string | null;
};

export function toOverrideRow(o: TRow): TOverrideRow {
  return {
    id: o.id,
    kind: o.kind,
    operation: o.operationKey,
    region: o.region,
    provider: o.providerKey,
    reason: o.reason,
    createdAt: o.createdAt.getTime(),
    expiresAt: o.expiresAt?.getTime() ?? null,
    endedAt: o.endedAt?.getTime() ?? null,
    endReason: o.endReason,
  };
}
