import type { PrismaClient } from "../db";
import { listChannels, type TChannelView } from "./channels";
import { listDeliveries, type TDeliveryView } from "./list-deliveries";

export type TNotificationsView = { channels: Array<TChannelView & { deliveries: TDeliveryView[] }>; publicUrlSet: boolean };

/** The Notifications page: every channel with its latest deliveries and their attempts. */
export async function getNotificationsView(prisma: PrismaClient, env: Readonly<Record<string, string | undefined>> = process.env): Promise<TNotificationsView> {
  const channels = await listChannels(prisma);
  const withDeliveries = await Promise.all(channels.map(async (c) => ({ ...c, deliveries: await listDeliveries(prisma, { channelId: c.id, limit: 10 }) })));
  return { channels: withDeliveries, publicUrlSet: Boolean(env.SWITCHYARD_PUBLIC_URL) };
}
