import { Prisma } from "../db";
import type { TActor } from "./actor";
import { auditEntryMac, resolveAuditKey } from "./audit-key";
import { toJsonValue } from "./canonical";
import { GENESIS_HASH, auditEntryHash } from "./hash";

export type TAuditInput = {
  action: string;
  targetType: string;
  targetId?: string | null;
  before?: unknown;
  after?: unknown;
  reason?: string | null;
};

/**
 * Appends one entry inside the caller's transaction, so the entry exists exactly when the
 * change commits. The transaction-scoped advisory lock serialises appenders: each reads the
 * head after the previous one committed, so the chain stays linear and seq gapless. The hash
 * is MACed with the audit key when one is configured (an HMAC: microseconds; the key is
 * resolved once and cached).
 */
export async function appendAudit(tx: Prisma.TransactionClient, actor: TActor, input: TAuditInput, now = new Date()) {
  const { key } = resolveAuditKey(); // before the lock: a misconfigured key fails here, holding nothing
  await tx.$executeRaw`select pg_advisory_xact_lock(hashtext('switchyard:audit_chain'))`;
  const head = await tx.auditEntry.findFirst({ orderBy: { seq: "desc" }, select: { seq: true, hash: true } });
  const before = input.before === undefined ? null : toJsonValue(input.before);
  const after = input.after === undefined ? null : toJsonValue(input.after);
  const fields = {
    seq: (head?.seq ?? 0) + 1,
    at: now,
    actorId: actor.userId,
    actor: actor.label,
    action: input.action,
    targetType: input.targetType,
    targetId: input.targetId ?? null,
    before,
    after,
    reason: input.reason ?? null,
    ip: actor.ip,
    prevHash: head?.hash ?? GENESIS_HASH,
  };
  const hash = auditEntryHash(fields);
  return tx.auditEntry.create({
    data: {
      ...fields,
      before: before === null ? Prisma.DbNull : (before as Prisma.InputJsonValue),
      after: after === null ? Prisma.DbNull : (after as Prisma.InputJsonValue),
      hash,
      mac: key ? auditEntryMac(key, hash) : null,
    },
  });
}
