"use server";

import { revalidatePath } from "next/cache";
import { withActionPermission } from "@/lib/auth/with-action-permission";
import { parseInput } from "@/lib/errors/api-errors";
import { ZChannelInput, awaitDelivery, channelFormInput, deleteChannel, saveChannel, sendTestNotification } from "@/lib/notify";

const text = (form: FormData, name: string) => String(form.get(name) ?? "").trim();
const done = <T>(value: T) => {
  revalidatePath("/notifications");
  return value;
};

export const saveChannelAction = withActionPermission("notification.manage", async ({ prisma, actor }, _prev: unknown, form: FormData) => {
  const channel = await saveChannel(prisma, actor, parseInput(ZChannelInput, channelFormInput(form)), text(form, "id") || null);
  return done({ status: "saved", detail: channel.name });
});

export const deleteChannelAction = withActionPermission("notification.manage", async ({ prisma, actor }, _prev: unknown, form: FormData) => {
  await deleteChannel(prisma, actor, text(form, "id"));
  return done({ status: "deleted", detail: "" });
});

/** Queues a test message and waits a few seconds for its first attempt, so the button can say what the receiver answered. */
export const testChannelAction = withActionPermission("notification.manage", async ({ prisma, actor }, _prev: unknown, form: FormData) => {
  const id = text(form, "id");
  const deliveryId = await sendTestNotification(prisma, actor, id);
  const view = await awaitDelivery(prisma, id, deliveryId);
  const last = view?.attempts.at(-1);
  const detail = !last ? "no attempt yet" : (last.error ?? `HTTP ${last.statusCode} in ${last.durationMs} ms`);
  return done({ status: view?.status ?? "pending", detail });
});
