import type { PrismaClient } from "../db";
import { fullJitterDelay } from "../gateway";
import type { TNotificationKind, TNotificationSeverity } from "./events";
import {
  CHANNEL_KINDS,
  PAGERDUTY_EVENTS_URL,
  pagerDutyRequest,
  slackRequest,
  webhookRequest,
  type TChannelKind,
  type TOutgoing,
  type TStoredEvent,
} from "./messages";
import { channelUrlProblem, createNotifySender, resolveCredential, secretDestinationProblem, type NotifySender, type TSendResult } from "./outbound";

export type TDispatcherSettings = {
  /** How often an instance looks for due deliveries. */
  pollMs: number;
  /** One request's whole exchange. */
  timeoutMs: number;
  /** Backoff: full jitter under min(cap, base · 2^attempt). */
  backoffBaseMs: number;
  backoffCapMs: number;
  /** A delivery not made within this long after its event is marked failed. */
  giveUpAfterMs: number;
  maxAttempts: number;
  /** Incident updates wait this long so a burst of them goes out as one message. */
  updateDelayMs: number;
  /** Deliveries claimed per round. */
  batch: number;
  /** Finished deliveries, their attempts and events are deleted after this long. */
  retentionMs: number;
};

export const DEFAULT_DISPATCHER_SETTINGS: TDispatcherSettings = {
  pollMs: 1000,
  timeoutMs: 10_000,
  backoffBaseMs: 1000,
  backoffCapMs: 5 * 60_000,
  giveUpAfterMs: 60 * 60_000,
  maxAttempts: 25,
  updateDelayMs: 30_000,
  batch: 20,
  retentionMs: 30 * 86_400_000,
};

const num = (raw: string | undefined, fallback: number, min: number, max: number) => {
  const n = Number(raw);
  return raw !== undefined && raw !== "" && Number.isFinite(n) ? Math.min(max, Math.max(min, n)) : fallback;
};

export function dispatcherSettingsFromEnv(env: Readonly<Record<string, string | undefined>>): TDispatcherSettings {
  const d = DEFAULT_DISPATCHER_SETTINGS;
  return {
    ...d,
    pollMs: num(env.NOTIFY_POLL_MS, d.pollMs, 50, 60_000),
    timeoutMs: num(env.NOTIFY_TIMEOUT_MS, d.timeoutMs, 100, 30_000),
    giveUpAfterMs: num(env.NOTIFY_GIVE_UP_MS, d.giveUpAfterMs, 1000, 7 * 86_400_000),
    backoffCapMs: num(env.NOTIFY_BACKOFF_CAP_MS, d.backoffCapMs, 1000, 3_600_000),
    updateDelayMs: num(env.NOTIFY_UPDATE_DELAY_MS, d.updateDelayMs, 0, 3_600_000),
  };
}

export type TDispatcherOptions = {
  prisma: PrismaClient;
  instanceId: string;
  log: (line: string) => void;
  settings?: Partial<TDispatcherSettings>;
  now?: () => number;
  random?: () => number;
  sender?: NotifySender;
  env?: Readonly<Record<string, string | undefined>>;
};

type TClaimed = {
  id: string;
  attempts: number;
  created_at: Date;
  channel_id: string;
  event_id: string;
};

/**
 * Claims due deliveries under a lease. A delivery waits while an older one of its group and
 * channel is still pending, so a resolve never overtakes its trigger; SKIP LOCKED lets several
 * instances claim at once without blocking, and the lease (not a held transaction) keeps the
 * claim while the request is in flight, so a crashed instance's claims come free again.
 */
const CLAIM = `update notification_delivery d
  set lease_owner = $1, lease_until = $2::timestamptz + make_interval(secs => $3), attempts = d.attempts + 1
  where d.id in (
    select c.id from notification_delivery c
    where c.status = 'pending' and c.next_attempt_at <= $2::timestamptz
      and (c.lease_until is null or c.lease_until < $2::timestamptz)
      and (c.kind <> 'incident.updated' or c.created_at <= $2::timestamptz - make_interval(secs => $4))
      and not exists (
        select 1 from notification_delivery e
        where e.channel_id = c.channel_id and e.group_key = c.group_key and e.status = 'pending'
          and (e.created_at, e.id) < (c.created_at, c.id))
    order by c.next_attempt_at, c.created_at
    limit $5
    for update skip locked)
  returning d.id, d.attempts, d.created_at, d.channel_id, d.event_id`;

type TChannelRow = { id: string; name: string; kind: string; enabled: boolean; url: string | null; secretRef: string };

/** What to send, or why it cannot be sent at all (a permanent failure, not retried). */
function outgoing(
  channel: TChannelRow,
  event: TStoredEvent,
  deliveryId: string,
  nowMs: number,
  env: Readonly<Record<string, string | undefined>>,
): { out: TOutgoing | null; problem: string | null } {
  const kind = channel.kind as TChannelKind;
  if (!CHANNEL_KINDS.includes(kind)) return { out: null, problem: `unknown channel kind ${channel.kind}` };
  const secret = resolveCredential(channel.secretRef, env);
  if (!secret.ok || !secret.value) return { out: null, problem: secret.ok ? `credential ${channel.secretRef} is empty` : secret.reason };
  const url = kind === "slack" ? secret.value : (channel.url ?? (kind === "pagerduty" ? PAGERDUTY_EVENTS_URL : ""));
  // The Slack URL is the secret: problems name the channel's reference, never the URL.
  const where = kind === "slack" ? `the URL in ${channel.secretRef}` : url;
  const urlProblem = channelUrlProblem(url, env) ?? secretDestinationProblem(kind, channel.secretRef, url, env);
  if (urlProblem) return { out: null, problem: `${where}: ${urlProblem}` };
  const publicUrl = env.SWITCHYARD_PUBLIC_URL ?? null;
  if (kind === "webhook") return { out: webhookRequest(url, secret.value, deliveryId, event, nowMs, publicUrl), problem: null };
  if (kind === "slack") return { out: slackRequest(url, event, publicUrl), problem: null };
  const pd = pagerDutyRequest(url, secret.value, event, publicUrl);
  return pd ? { out: pd, problem: null } : { out: null, problem: `PagerDuty takes incidents, kill switches and pins, not ${event.kind}` };
}

/** 408, 425, 429 and 5xx are worth another try; other answers will not change by themselves. */
export function retryable(r: TSendResult): boolean {
  if (r.status === null) return true;
  return r.status === 408 || r.status === 425 || r.status === 429 || r.status >= 500;
}

/** Finished deliveries, their attempts and the events no delivery names any more, older than `before` (a bounded batch per call). */
async function deleteFinished(prisma: PrismaClient, before: Date): Promise<void> {
  const gone = await prisma.notificationDelivery.findMany({
    where: { status: { not: "pending" }, finishedAt: { lt: before } },
    select: { id: true },
    take: 5000,
  });
  const ids = gone.map((g) => g.id);
  await prisma.notificationAttempt.deleteMany({ where: { deliveryId: { in: ids } } });
  await prisma.notificationDelivery.deleteMany({ where: { id: { in: ids } } });
  await prisma.$executeRawUnsafe(
    "delete from notification_event e where e.created_at < $1::timestamptz and not exists (select 1 from notification_delivery d where d.event_id = e.id)",
    before,
  );
}

export function createNotificationDispatcher(opts: TDispatcherOptions) {
  const s: TDispatcherSettings = { ...DEFAULT_DISPATCHER_SETTINGS, ...opts.settings };
  const now = opts.now ?? Date.now;
  const random = opts.random ?? Math.random;
  const env = opts.env ?? process.env;
  const sender = opts.sender ?? createNotifySender(env);
  const leaseSeconds = Math.ceil((s.timeoutMs * 2 + 5000) / 1000);
  let timer: NodeJS.Timeout | null = null;
  let running: Promise<number> | null = null;
  let stopped = false;
  let lastSweep = 0;
  let lastFailureLog = 0;

  async function claim(): Promise<TClaimed[]> {
    return opts.prisma.$queryRawUnsafe<TClaimed[]>(CLAIM, opts.instanceId, new Date(now()), leaseSeconds, s.updateDelayMs / 1000, s.batch);
  }

  async function finish(d: TClaimed, startedAt: Date, r: TSendResult, permanent: boolean): Promise<void> {
    const t = now();
    const delivered = r.error === null;
    const expired = t - d.created_at.getTime() >= s.giveUpAfterMs || d.attempts >= s.maxAttempts;
    const failed = !delivered && (permanent || !retryable(r) || expired);
    const wait = Math.max(fullJitterDelay(d.attempts - 1, { baseMs: s.backoffBaseMs, capMs: s.backoffCapMs }, random), r.retryAfterMs ?? 0);
    const next = new Date(Math.min(t + Math.min(wait, s.backoffCapMs), d.created_at.getTime() + s.giveUpAfterMs));
    await opts.prisma.$transaction([
      opts.prisma.notificationAttempt.create({
        data: {
          deliveryId: d.id,
          attempt: d.attempts,
          instanceId: opts.instanceId,
          startedAt,
          durationMs: r.durationMs,
          statusCode: r.status,
          error: r.error?.slice(0, 500) ?? null,
        },
      }),
      // Only while this instance still holds the claim: after a lost lease another instance owns the row.
      opts.prisma.notificationDelivery.updateMany({
        where: { id: d.id, leaseOwner: opts.instanceId, attempts: d.attempts, status: "pending" },
        data: delivered
          ? { status: "delivered", finishedAt: new Date(t), leaseOwner: null, leaseUntil: null, lastError: null }
          : failed
            ? { status: "failed", finishedAt: new Date(t), leaseOwner: null, leaseUntil: null, lastError: r.error?.slice(0, 500) ?? null }
            : { nextAttemptAt: next, leaseOwner: null, leaseUntil: null, lastError: r.error?.slice(0, 500) ?? null },
      }),
    ]);
    if (failed) opts.log(`notification ${d.id} failed after ${d.attempts} attempt(s): ${r.error ?? ""}`);
  }

  async function deliver(d: TClaimed): Promise<void> {
    const [channel, row] = await Promise.all([
      opts.prisma.notificationChannel.findUnique({ where: { id: d.channel_id } }),
      opts.prisma.notificationEvent.findUnique({ where: { id: d.event_id } }),
    ]);
    const startedAt = new Date(now());
    const stop = (error: string) => finish(d, startedAt, { status: null, error, durationMs: 0, retryAfterMs: null }, true);
    if (!channel || !row) return stop(channel ? "event deleted" : "channel deleted");
    if (!channel.enabled) return stop(`channel ${channel.name} is disabled`);
    const event: TStoredEvent = {
      ...row,
      kind: row.kind as TNotificationKind,
      severity: row.severity as TNotificationSeverity,
      payload: (row.payload ?? {}) as Record<string, unknown>,
    };
    const { out, problem } = outgoing(channel, event, d.id, now(), env);
    if (!out) return stop(problem ?? "nothing to send");
    await finish(d, startedAt, await sender.send(out, s.timeoutMs), false);
  }

  async function sweep(): Promise<void> {
    if (now() - lastSweep < 3_600_000) return;
    lastSweep = now();
    await deleteFinished(opts.prisma, new Date(now() - s.retentionMs));
  }

  /** One round: claim what is due, send it, record each attempt. Returns how many were attempted. */
  async function runOnce(): Promise<number> {
    const claimed = await claim();
    await Promise.all(claimed.map((d) => deliver(d)));
    await sweep();
    return claimed.length;
  }

  function schedule(delay: number): void {
    if (stopped) return;
    timer = setTimeout(() => {
      running = runOnce().catch((err: unknown) => {
        // Postgres away: the outbox waits with it; say so once a minute, not once a poll.
        if (Date.now() - lastFailureLog >= 60_000) {
          lastFailureLog = Date.now();
          opts.log(`notifications: ${err instanceof Error ? err.message : String(err)}`);
        }
        return 0;
      });
      // A full batch means more may be due: go again at once.
      void running.then((n) => schedule(n >= s.batch ? 0 : s.pollMs));
    }, delay);
    timer.unref();
  }

  return {
    settings: s,
    runOnce,
    start(): void {
      stopped = false;
      schedule(0);
    },
    async stop(): Promise<void> {
      stopped = true;
      if (timer) clearTimeout(timer);
      await running;
      sender.close();
    },
  };
}
export type NotificationDispatcher = ReturnType<typeof createNotificationDispatcher>;
