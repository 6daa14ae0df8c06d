import { createHash } from "node:crypto";
import { canonicalJson } from "./canonical";

export const GENESIS_HASH = "0".repeat(64);

export type THashedFields = {
  seq: number;
  at: Date;
  actorId: string | null;
  actor: string;
  action: string;
  targetType: string;
  targetId: string | null;
  before: unknown;
  after: unknown;
  reason: string | null;
  ip: string | null;
  prevHash: string;
};

/** seq and prev_hash are inside the hash, so moving, removing or swapping rows breaks the chain. */
export function auditEntryHash(e: THashedFields): string {
  const canonical = canonicalJson({
    seq: e.seq,
    at: e.at.toISOString(),
    actorId: e.actorId,
    actor: e.actor,
    action: e.action,
    targetType: e.targetType,
    targetId: e.targetId,
    before: e.before ?? null,
    after: e.after ?? null,
    reason: e.reason,
    ip: e.ip,
    prevHash: e.prevHash,
  });
  return createHash("sha256").update(canonical).digest("hex");
}
