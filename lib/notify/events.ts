/**
 * What can be notified. The incidents area and the control plane call enqueueNotification
 * with one of these inside the transaction that makes the fact true, so a notification exists
 * exactly when the fact commits.
 */
export const NOTIFICATION_KINDS = [
  "incident.opened",
  "incident.updated",
  "incident.resolved",
  "policy.activated",
  "kill_switch.set",
  "kill_switch.ended",
  "pin.set",
  "pin.ended",
  "compliance.approved",
  "test",
] as const;
export type TNotificationKind = (typeof NOTIFICATION_KINDS)[number];

export const NOTIFICATION_SEVERITIES = ["critical", "warning", "info"] as const;
export type TNotificationSeverity = (typeof NOTIFICATION_SEVERITIES)[number];

type TWhen = Date | string;

export type TIncidentNotification = {
  kind: "incident.opened" | "incident.updated" | "incident.resolved";
  incidentId: string;
  operation: string;
  region: string;
  provider: string | null;
  severity: TNotificationSeverity;
  title: string;
  cause: string;
  startedAt: TWhen;
  endedAt?: TWhen | null;
  /** Link to the incident page: absolute, or a path the dispatcher prefixes with SWITCHYARD_PUBLIC_URL. */
  url: string;
};

export type TOverrideNotification = {
  kind: "kill_switch.set" | "kill_switch.ended" | "pin.set" | "pin.ended";
  overrideId: string;
  operation: string | null;
  region: string | null;
  provider: string | null;
  actor: string;
  reason: string;
  expiresAt?: TWhen | null;
  url: string;
};

export type TPolicyNotification = {
  kind: "policy.activated";
  policyId: string;
  operation: string;
  version: number;
  actor: string;
  url: string;
};

export type TComplianceNotification = {
  kind: "compliance.approved";
  changeId: string;
  targetType: string;
  targetKey: string;
  summary: string;
  requestedBy: string;
  actor: string;
  url: string;
};

export type TNotificationInput = TIncidentNotification | TOverrideNotification | TPolicyNotification | TComplianceNotification;

/** What every event has, whatever its kind: the columns routing and grouping read. */
export type TEventFacts = {
  kind: TNotificationKind;
  groupKey: string;
  incidentId: string | null;
  operation: string | null;
  region: string | null;
  provider: string | null;
  severity: TNotificationSeverity;
  title: string;
};

const MAX_TEXT = 2000;
const MAX_TITLE = 200;

/** Strings are clipped, never refused: a long cause must not roll back the incident that carries it. */
export function clip(value: string, max = MAX_TEXT): string {
  return value.length <= max ? value : `${value.slice(0, max - 1)}…`;
}

function iso(value: TWhen | null | undefined): string | null {
  if (value === null || value === undefined) return null;
  const d = value instanceof Date ? value : new Date(value);
  return Number.isNaN(d.getTime()) ? null : d.toISOString();
}

function scope(op: string | null, region: string | null, provider: string | null): string {
  return [provider, op, region].filter(Boolean).join(" · ") || "all traffic";
}

function overrideTitle(e: TOverrideNotification): string {
  const what = e.kind.startsWith("kill_switch") ? "Kill switch" : "Pin";
  const verb = e.kind.endsWith(".set") ? "set" : "ended";
  return `${what} ${verb}: ${scope(e.operation, e.region, e.provider)}`;
}

/** The routing and grouping columns of an event. */
export function eventFacts(e: TNotificationInput): TEventFacts {
  switch (e.kind) {
    case "incident.opened":
    case "incident.updated":
    case "incident.resolved":
      return {
        kind: e.kind,
        groupKey: `incident:${e.incidentId}`,
        incidentId: e.incidentId,
        operation: e.operation,
        region: e.region,
        provider: e.provider,
        severity: e.kind === "incident.resolved" ? "info" : e.severity,
        title: clip(e.title, MAX_TITLE),
      };
    case "kill_switch.set":
    case "kill_switch.ended":
    case "pin.set":
    case "pin.ended":
      return {
        kind: e.kind,
        groupKey: `override:${e.overrideId}`,
        incidentId: null,
        operation: e.operation,
        region: e.region,
        provider: e.provider,
        severity: e.kind === "kill_switch.set" ? "warning" : "info",
        title: clip(overrideTitle(e), MAX_TITLE),
      };
    case "policy.activated":
      return {
        kind: e.kind,
        groupKey: `policy:${e.operation}`,
        incidentId: null,
        operation: e.operation,
        region: null,
        provider: null,
        severity: "info",
        title: clip(`Factor list v${e.version} active on ${e.operation}`, MAX_TITLE),
      };
    case "compliance.approved":
      return {
        kind: e.kind,
        groupKey: `compliance:${e.changeId}`,
        incidentId: null,
        operation: e.targetType === "operation" || e.targetType === "factor_list" ? e.targetKey : null,
        region: null,
        provider: e.targetType === "provider" ? e.targetKey : null,
        severity: "info",
        title: clip(`Compliance approved: ${e.targetType} ${e.targetKey}`, MAX_TITLE),
      };
  }
}

/** The event as stored and sent: dates as ISO strings, every string clipped. */
export function eventPayload(e: TNotificationInput): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(e)) {
    if (v instanceof Date || k === "startedAt" || k === "endedAt" || k === "expiresAt") out[k] = iso(v as TWhen | null | undefined);
    else out[k] = typeof v === "string" ? clip(v) : v;
  }
  return out;
}
