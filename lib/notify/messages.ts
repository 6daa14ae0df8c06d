import type { TNotificationKind, TNotificationSeverity } from "./events";
import { DELIVERY_HEADER, EVENT_HEADER, SIGNATURE_HEADER, TIMESTAMP_HEADER, signWebhook } from "./signature";

export const CHANNEL_KINDS = ["webhook", "slack", "pagerduty"] as const;
export type TChannelKind = (typeof CHANNEL_KINDS)[number];

export const PAGERDUTY_EVENTS_URL = "https://events.pagerduty.com/v2/enqueue";

/** One stored event as the dispatcher reads it. */
export type TStoredEvent = {
  id: string;
  kind: TNotificationKind;
  groupKey: string;
  severity: TNotificationSeverity;
  title: string;
  operation: string | null;
  region: string | null;
  provider: string | null;
  payload: Record<string, unknown>;
  createdAt: Date;
};

export type TOutgoing = { url: string; headers: Record<string, string>; body: string };

const KIND_LABEL: Record<TNotificationKind, string> = {
  "incident.opened": "Incident opened",
  "incident.updated": "Incident updated",
  "incident.resolved": "Incident resolved",
  "policy.activated": "Factor list activated",
  "kill_switch.set": "Kill switch set",
  "kill_switch.ended": "Kill switch ended",
  "pin.set": "Pin set",
  "pin.ended": "Pin ended",
  "compliance.approved": "Compliance approval",
  test: "Test notification",
};

/** A relative link becomes absolute under the console's public URL; without one it stays a path. */
export function absoluteLink(url: unknown, publicUrl: string | null): string | null {
  if (typeof url !== "string" || url === "") return null;
  if (/^https?:\/\//.test(url)) return url;
  return publicUrl ? `${publicUrl.replace(/\/+$/, "")}${url.startsWith("/") ? "" : "/"}${url}` : url;
}

const str = (v: unknown) => (typeof v === "string" && v !== "" ? v : null);

/** The facts a person reads first, in order, for Slack fields and PagerDuty custom details. */
function facts(e: TStoredEvent): Array<[string, string]> {
  const p = e.payload;
  const rows: Array<[string, string | null]> = [
    ["Operation", e.operation],
    ["Region", e.region],
    ["Provider", e.provider],
    ["Severity", e.severity],
    ["Cause", str(p.cause)],
    ["Started", str(p.startedAt)],
    ["Ended", str(p.endedAt)],
    ["By", str(p.actor)],
    ["Reason", str(p.reason)],
    ["Expires", str(p.expiresAt)],
    ["Change", str(p.summary)],
  ];
  return rows.filter((r): r is [string, string] => r[1] !== null);
}

/** The generic webhook: the event as JSON, signed (signature.ts). */
export function webhookRequest(url: string, secret: string, deliveryId: string, e: TStoredEvent, nowMs: number, publicUrl: string | null): TOutgoing {
  const body = JSON.stringify({
    id: e.id,
    deliveryId,
    kind: e.kind,
    group: e.groupKey,
    severity: e.severity,
    title: e.title,
    operation: e.operation,
    region: e.region,
    provider: e.provider,
    occurredAt: e.createdAt.toISOString(),
    link: absoluteLink(e.payload.url, publicUrl),
    data: e.payload,
  });
  const ts = Math.floor(nowMs / 1000);
  return {
    url,
    body,
    headers: {
      "content-type": "application/json",
      [TIMESTAMP_HEADER]: String(ts),
      [SIGNATURE_HEADER]: signWebhook(secret, ts, body),
      [DELIVERY_HEADER]: deliveryId,
      [EVENT_HEADER]: e.kind,
    },
  };
}

const SEVERITY_MARK: Record<TNotificationSeverity, string> = { critical: ":red_circle:", warning: ":large_orange_circle:", info: ":large_blue_circle:" };

/**
 * Slack incoming webhook: `text` (the notification and fallback) and blocks. An incoming webhook
 * answers "ok", not the message's ts, so replies cannot be threaded under it: every message of
 * one incident carries the same title, prefixed with what changed, so they read as one thread.
 */
export function slackRequest(webhookUrl: string, e: TStoredEvent, publicUrl: string | null): TOutgoing {
  const link = absoluteLink(e.payload.url, publicUrl);
  const text = `${SEVERITY_MARK[e.severity]} ${KIND_LABEL[e.kind]}: ${e.title}`;
  const fields = facts(e)
    .slice(0, 10)
    .map(([k, v]) => ({ type: "mrkdwn", text: `*${k}*\n${v.slice(0, 1900)}` }));
  const blocks: unknown[] = [
    { type: "section", text: { type: "mrkdwn", text: `*${KIND_LABEL[e.kind]}* · ${e.title}`.slice(0, 3000) } },
    ...(fields.length > 0 ? [{ type: "section", fields }] : []),
    {
      type: "context",
      elements: [{ type: "mrkdwn", text: `${link && /^https?:/.test(link) ? `<${link}|Open in Switchyard>` : (link ?? "Switchyard")} · ${e.groupKey}` }],
    },
  ];
  return { url: webhookUrl, headers: { "content-type": "application/json" }, body: JSON.stringify({ text, blocks }) };
}

/** Which PagerDuty action an event is: an incident or override opens (trigger) and closes (resolve) one alert under one dedup key. */
export function pagerDutyAction(kind: TNotificationKind): "trigger" | "resolve" | null {
  if (kind === "incident.opened" || kind === "incident.updated" || kind === "kill_switch.set" || kind === "pin.set" || kind === "test") return "trigger";
  if (kind === "incident.resolved" || kind === "kill_switch.ended" || kind === "pin.ended") return "resolve";
  return null;
}

/** PagerDuty Events API v2: dedup_key is the event's group, so updates refresh one alert and the resolve closes it. */
export function pagerDutyRequest(url: string, routingKey: string, e: TStoredEvent, publicUrl: string | null): TOutgoing | null {
  const action = pagerDutyAction(e.kind);
  if (!action) return null;
  const link = absoluteLink(e.payload.url, publicUrl);
  const dedupKey = `switchyard:${e.groupKey}`;
  const body =
    action === "resolve"
      ? { routing_key: routingKey, event_action: "resolve", dedup_key: dedupKey }
      : {
          routing_key: routingKey,
          event_action: "trigger",
          dedup_key: dedupKey,
          payload: {
            summary: `${KIND_LABEL[e.kind]}: ${e.title}`.slice(0, 1024),
            source: e.provider ?? "switchyard",
            severity: e.severity,
            timestamp: e.createdAt.toISOString(),
            component: e.operation ?? undefined,
            group: e.region ?? undefined,
            class: e.kind,
            custom_details: Object.fromEntries(facts(e)),
          },
          ...(link && /^https?:/.test(link) ? { links: [{ href: link, text: "Open in Switchyard" }] } : {}),
        };
  return { url, headers: { "content-type": "application/json" }, body: JSON.stringify(body) };
}
