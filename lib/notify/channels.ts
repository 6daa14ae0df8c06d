import type { NotificationChannel, Prisma, PrismaClient } from "../db";
import { type TActor, appendAudit } from "../audit";
import { ContractError, invalid, isUniqueViolation, notFound } from "../errors";
import { resolveCredential } from "../gateway";
import { channelData, channelInputErrors, type TChannelInput } from "./channel-input";
import type { TChannelKind } from "./messages";
import { NO_ROUTES, parseRoutes, type TChannelRoutes } from "./routes";

/** A channel as the console and the bundle show it: the secret's reference and whether it resolves here, never its value. */
export type TChannelView = {
  id: string;
  name: string;
  kind: TChannelKind;
  enabled: boolean;
  url: string | null;
  secretRef: string;
  secretState: "resolved" | "missing";
  routes: TChannelRoutes;
  version: number;
  updatedAt: string;
};

export function channelView(c: NotificationChannel, env: Readonly<Record<string, string | undefined>> = process.env): TChannelView {
  return {
    id: c.id,
    name: c.name,
    kind: c.kind as TChannelKind,
    enabled: c.enabled,
    url: c.url,
    secretRef: c.secretRef,
    secretState: resolveCredential(c.secretRef, env).ok ? "resolved" : "missing",
    routes: parseRoutes(c.routes) ?? NO_ROUTES,
    version: c.version,
    updatedAt: c.updatedAt.toISOString(),
  };
}

const audited = (c: NotificationChannel) => ({
  name: c.name,
  kind: c.kind,
  enabled: c.enabled,
  url: c.url,
  secretRef: c.secretRef,
  routes: c.routes,
  version: c.version,
});

export async function listChannels(prisma: PrismaClient): Promise<TChannelView[]> {
  const rows = await prisma.notificationChannel.findMany({ orderBy: { name: "asc" }, take: 200 });
  return rows.map((r) => channelView(r));
}

const taken = (name: string) => new ContractError("channel_exists", `a channel named ${name} already exists`, [{ path: "name", message: "already taken" }]);

/** Writes a channel inside the caller's transaction (the console's actions and the bundle's apply share it). */
export async function putChannel(tx: Prisma.TransactionClient, actor: TActor, input: TChannelInput, id: string | null): Promise<NotificationChannel> {
  const errors = channelInputErrors(input);
  if (errors.length > 0) throw invalid(errors, "the channel has invalid fields");
  const before = id ? await tx.notificationChannel.findUnique({ where: { id } }) : null;
  if (id && !before) throw notFound("notification channel", id);
  const clash = await tx.notificationChannel.findUnique({ where: { name: input.name } });
  if (clash && clash.id !== id) throw taken(input.name);
  const data = channelData(input);
  const after = before
    ? await tx.notificationChannel.update({ where: { id: before.id }, data: { ...data, version: { increment: 1 }, updatedAt: new Date() } })
    : await tx.notificationChannel.create({ data });
  await appendAudit(tx, actor, {
    action: before ? "notification_channel.update" : "notification_channel.create",
    targetType: "notification_channel",
    targetId: after.id,
    before: before ? audited(before) : undefined,
    after: audited(after),
  });
  return after;
}

export async function saveChannel(prisma: PrismaClient, actor: TActor, input: TChannelInput, id: string | null = null): Promise<TChannelView> {
  try {
    return channelView(await prisma.$transaction((tx) => putChannel(tx, actor, input, id)));
  } catch (err) {
    if (isUniqueViolation(err)) throw taken(input.name);
    throw err;
  }
}

/** Deletes a channel; its deliveries still waiting are marked failed so the outbox holds nothing it cannot send. */
export async function deleteChannel(prisma: PrismaClient, actor: TActor, id: string): Promise<void> {
  await prisma.$transaction(async (tx) => {
    const before = await tx.notificationChannel.findUnique({ where: { id } });
    if (!before) throw notFound("notification channel", id);
    await tx.notificationDelivery.updateMany({
      where: { channelId: id, status: "pending" },
      data: { status: "failed", finishedAt: new Date(), lastError: "channel deleted" },
    });
    await tx.notificationChannel.delete({ where: { id } });
    await appendAudit(tx, actor, { action: "notification_channel.delete", targetType: "notification_channel", targetId: id, before: audited(before) });
  });
}
