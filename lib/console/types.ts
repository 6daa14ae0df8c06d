/**
 * JSON shapes the console's read models return: the server components render them for first
 * paint and the /api/console routes serve the same shapes to react-query for live refresh.
 * Times are epoch milliseconds so they survive JSON unchanged.
 */
export type TShares = Record<string, number>;

export type TSharePoint = { t: number; shares: TShares };

export type TShareSeries = { providers: string[]; points: TSharePoint[]; from: number; to: number; bucketSeconds: number };

/** Decisions per provider in one bucket, from the decision log: what was served, not what was planned. */
export type TServedPoint = { t: number; counts: Record<string, number>; served: number; unserved: number };

export type TServedSeries = { providers: string[]; points: TServedPoint[]; from: number; to: number; bucketSeconds: number };

/** A pin, kill or kill switch in effect over [start, end] of the chart's range. */
export type TOverrideBand = { id: string; kind: TOverrideRow["kind"]; provider: string | null; reason: string; start: number; end: number; ongoing: boolean };

export type TMarkKind = "shift" | "activation" | "override" | "fault";

export type TChartMark = {
  kind: TMarkKind;
  id: string;
  at: number;
  label: string;
  detail: string;
  /** Provider the mark is about, when there is one. */
  provider: string | null;
  /** Where the full explanation lives. */
  href: string;
};

export type TShiftEvent = {
  id: string;
  at: number;
  operation: string;
  region: string;
  type: string;
  provider: string | null;
  leaderFrom: string | null;
  leaderTo: string | null;
  sharesFrom: TShares;
  sharesTo: TShares;
  capped: boolean;
  detail: string;
  evidence: TEvidence[];
  policyVersion: string | null;
};

export type TEvidence = {
  provider: string;
  eligible: boolean;
  score: number | null;
  sampleCount: number;
  failedGates: string[];
  metrics: Record<string, unknown>;
};

export type TBreakerState = "closed" | "open" | "half_open";

export type TProviderHealth = {
  provider: string;
  region: string;
  completionRate: number | null;
  p95Ms: number | null;
  samples: number;
  /** The controller's planned share. */
  share: number | null;
  /** Share of the decisions served in the metric window (overview only: from the decision log). */
  servedShare?: number | null;
  breaker: TBreakerState;
  breakerSince: number | null;
  breakerReason: string | null;
};

export type TOverrideRow = {
  id: string;
  kind: "routing_kill_switch" | "provider_kill" | "provider_pin";
  operation: string | null;
  region: string | null;
  provider: string | null;
  reason: string;
  createdAt: number;
  expiresAt: number | null;
  endedAt: number | null;
  endReason: string | null;
};

export type TOverview = {
  operation: string;
  region: string;
  /** The controller's planned shares (the overlay). */
  series: TShareSeries;
  /** Shares served, from the decision log (the primary series). */
  served: TServedSeries;
  bands: TOverrideBand[];
  /** The stored incidents of this operation and region that overlap the range, newest first. */
  incidents: TIncidentSpan[];
  /** Open incidents across the fleet (every operation and region), newest first: the overview's way in. */
  openIncidents: TOpenIncident[];
  marks: TChartMark[];
  health: TProviderHealth[];
  overrides: TOverrideRow[];
  shifts: TShiftEvent[];
  windowMinutes: number;
  policyVersion: string | null;
  generatedAt: number;
};

/** An incident as a band on the chart: `trigger` is its cause kind, `events` its steps; the incident page has the rest. */
export type TIncidentSpan = {
  id: string;
  start: number;
  end: number;
  resolved: boolean;
  trigger: string;
  title: string;
  events: number;
  losing: string[];
  gaining: string[];
};

export type TOpenIncident = {
  id: string;
  title: string;
  operation: string;
  region: string;
  severity: string;
  state: string;
  startedAt: number;
  headline: string | null;
};

export type TScope = { operations: { key: string; regions: string[] }[] };
