import type { Prisma } from "../../db";
import { ContractError, isUniqueViolation } from "../../errors";

export type TPointerChange = { activeVersionId?: string | null; shadowVersionId?: string | null };

/**
 * Moves an operation's active/shadow pointer with optimistic locking: the update only
 * applies if lock_version is still what this transaction read (or what the caller saw, when
 * it passes expectedLockVersion). Of two concurrent activations the second's update waits for
 * the first to commit, then matches no row and is refused with 409, so there is never more
 * than one active version.
 */
export async function movePolicyPointer(tx: Prisma.TransactionClient, operationKey: string, change: TPointerChange, expectedLockVersion?: number) {
  let policy = await tx.operationPolicy.findUnique({ where: { operationKey } });
  if (!policy) {
    try {
      policy = await tx.operationPolicy.create({ data: { operationKey } });
    } catch (err) {
      if (isUniqueViolation(err)) throw conflict(operationKey);
      throw err;
    }
  }
  if (expectedLockVersion !== undefined && expectedLockVersion !== policy.lockVersion) throw conflict(operationKey);
  const updated = await tx.operationPolicy.updateMany({
    where: { operationKey, lockVersion: policy.lockVersion },
    data: { ...change, lockVersion: { increment: 1 } },
  });
  if (updated.count !== 1) throw conflict(operationKey);
  return { before: policy, lockVersion: policy.lockVersion + 1 };
}

function conflict(operationKey: string) {
  return new ContractError("policy_conflict", `the policy of ${operationKey} changed while you were acting on it; reload and try again`);
}
