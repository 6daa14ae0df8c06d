import type { Prisma, PrismaClient } from "../db";
import { type TActor, canonicalJson } from "../audit";
import type { TFieldError } from "../errors";
import { channelInputErrors, putChannel, ZChannelInput, type TChannelInput } from "../notify";

/**
 * The bundle's `notifications:` section: notification channels by name, whole (a channel's
 * secret is a reference, as a provider's credential is). Omitted: channels are left as they
 * are; a channel the bundle leaves out is never deleted.
 */
export const ZBundleChannel = ZChannelInput;

type TChange = { target: string; path: string; action: "create" | "update"; effect: "applied"; detail: string };

type TRow = { id: string; name: string; kind: string; enabled: boolean; url: string | null; secretRef: string; routes: unknown };

const shape = (c: TRow | TChannelInput) => ({ kind: c.kind, enabled: c.enabled, url: c.url ?? null, secretRef: c.secretRef, routes: c.routes });

function duplicates(channels: readonly TChannelInput[], errors: TFieldError[]): void {
  const seen = new Set<string>();
  channels.forEach((c, i) => {
    if (seen.has(c.name)) errors.push({ path: `notifications[${i}].name`, message: `${c.name} appears twice in the bundle` });
    seen.add(c.name);
  });
}

/** What applying the section would change; refusals go to `errors` with their bundle path. */
export async function planNotifications(
  tx: Prisma.TransactionClient,
  channels: readonly TChannelInput[] | undefined,
  errors: TFieldError[],
): Promise<TChange[]> {
  if (!channels || channels.length === 0) return [];
  duplicates(channels, errors);
  const rows = new Map((await tx.notificationChannel.findMany()).map((r) => [r.name, r]));
  const changes: TChange[] = [];
  for (const c of channels) {
    const path = `notifications[${c.name}]`;
    errors.push(...channelInputErrors(c).map((f) => ({ path: `${path}.${f.path}`, message: f.message })));
    const row = rows.get(c.name);
    // A PagerDuty channel without a URL is stored with PagerDuty's: compare like with like.
    const next = row && c.kind === "pagerduty" && c.url === null ? { ...c, url: row.url } : c;
    if (row && canonicalJson(shape(row)) === canonicalJson(shape(next))) continue;
    changes.push({
      target: `notification channel ${c.name}`,
      path,
      action: row ? "update" : "create",
      effect: "applied",
      detail: `${c.kind} ${c.enabled ? "enabled" : "disabled"}, secret ${c.secretRef}`,
    });
  }
  return changes;
}

/** Writes one planned channel inside the bundle's transaction (audited like the console's save). */
export async function writeNotificationChannel(tx: Prisma.TransactionClient, actor: TActor, c: TChannelInput): Promise<void> {
  const row = await tx.notificationChannel.findUnique({ where: { name: c.name }, select: { id: true } });
  await putChannel(tx, actor, c, row?.id ?? null);
}

export async function exportNotifications(prisma: PrismaClient): Promise<TChannelInput[]> {
  const rows = await prisma.notificationChannel.findMany({ orderBy: { name: "asc" } });
  return rows.map((r) => ZChannelInput.parse({ name: r.name, kind: r.kind, enabled: r.enabled, url: r.url, secretRef: r.secretRef, routes: r.routes }));
}
