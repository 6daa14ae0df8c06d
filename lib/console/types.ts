/**
 * JSON shapes the console's read models return: the server components render them for first
 * paint and the /api/console routes serve the same shapes to react-query for live refresh.
 * Times are epoch milliseconds so they survive JSON unchanged.
 */
export type TShares = Record<string, number>;

export type TSharePoint = { t: number; shares: TShares };

export type TShareSeries = { providers: string[]; points: TSharePoint[]; from: number; to: number; bucketSeconds: number };

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
  share: number | null;
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
  series: TShareSeries;
  marks: TChartMark[];
  health: TProviderHealth[];
  overrides: TOverrideRow[];
  shifts: TShiftEvent[];
  windowMinutes: number;
  policyVersion: string | null;
  generatedAt: number;
};

export type TScope = { operations: { key: string; regions: string[] }[] };
