import type { Override, Prisma } from "../db";
import type { TActor } from "../audit";
import { enqueueNotification } from "./enqueue";

/**
 * The control plane's changes that on-call and reviewers subscribe to, each called inside the
 * transaction that makes the change, like the audit entry beside it.
 */

type TOverrideRow = Pick<Override, "id" | "kind" | "operationKey" | "region" | "providerKey" | "reason" | "expiresAt" | "endReason">;

/** A kill switch or provider kill is a kill switch to the reader; a pin is a pin. */
export async function notifyOverride(tx: Prisma.TransactionClient, o: TOverrideRow, change: "set" | "ended", actor: TActor, now = new Date()): Promise<void> {
  const family = o.kind === "provider_pin" ? "pin" : "kill_switch";
  await enqueueNotification(
    tx,
    {
      kind: `${family}.${change}`,
      overrideId: o.id,
      operation: o.operationKey,
      region: o.region,
      provider: o.providerKey,
      actor: actor.label,
      reason: change === "set" ? o.reason : (o.endReason ?? "ended"),
      expiresAt: o.expiresAt,
      url: "/providers",
    },
    now,
  );
}

export async function notifyPolicyActivated(
  tx: Prisma.TransactionClient,
  v: { id: string; operationKey: string; version: number },
  actor: TActor,
  now = new Date(),
): Promise<void> {
  await enqueueNotification(
    tx,
    { kind: "policy.activated", policyId: v.id, operation: v.operationKey, version: v.version, actor: actor.label, url: `/factor-lists/${v.id}` },
    now,
  );
}

export async function notifyComplianceApproved(
  tx: Prisma.TransactionClient,
  c: { changeId: string; targetType: string; targetKey: string; summary: string; requestedBy: string; url: string },
  actor: TActor,
  now = new Date(),
): Promise<void> {
  await enqueueNotification(tx, { kind: "compliance.approved", ...c, actor: actor.label }, now);
}
