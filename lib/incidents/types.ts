/**
 * The incidents area's data shapes. Pure (no runtime imports), so components may import these
 * types and the reducer stays testable without a database.
 */
export type TShares = Record<string, number>;

export const INCIDENT_STATES = ["open", "recovering", "resolved"] as const;
export type TIncidentState = (typeof INCIDENT_STATES)[number];

export const INCIDENT_SEVERITIES = ["critical", "warning", "info"] as const;
export type TIncidentSeverity = (typeof INCIDENT_SEVERITIES)[number];

/** Provider faults first, then operator and policy changes: the change kinds never absorb a fault. */
export const FAULT_CAUSES = ["breaker_open", "metric_threshold", "hard_exclusion", "quota_exhausted", "no_eligible_provider"] as const;
export const CHANGE_CAUSES = ["provider_kill", "provider_pin", "routing_kill_switch", "policy_activation"] as const;
export type TCauseKind = (typeof FAULT_CAUSES)[number] | (typeof CHANGE_CAUSES)[number];

export const STEP_PHASES = ["away", "recovery", "failback", "rebalance"] as const;
export type TStepPhase = (typeof STEP_PHASES)[number];

/** One (operation, region): incidents never span two, so unrelated regions stay separate. */
export type TScope = { operation: string; region: string };

export type TEvidenceEntry = {
  provider: string;
  eligible: boolean;
  score: number | null;
  sampleCount: number;
  regional: { samples: number; failures: number } | null;
  failedGates: string[];
  metrics: Record<string, unknown>;
};

/** A controller shift event as stored (shift_event). */
export type TShiftFact = TScope & {
  kind: "shift";
  id: string;
  at: number;
  type: string;
  provider: string | null;
  sharesFrom: TShares;
  sharesTo: TShares;
  capped: boolean;
  detail: string;
  evidence: TEvidenceEntry[];
};

/** A breaker transition (breaker_event) with the scopes where its provider holds a share. */
export type TBreakerFact = {
  kind: "breaker";
  id: string;
  at: number;
  provider: string;
  region: string | null;
  from: string;
  to: string;
  reason: string;
  detail: string;
  /** (operation, region) pairs the provider serves here, with its planned share in each. */
  scopes: (TScope & { share: number })[];
};

/** An operator's override created or ended (audit log), resolved to the scopes it touches. */
export type TOverrideFact = {
  kind: "override";
  seq: number;
  at: number;
  action: "create" | "end";
  overrideId: string;
  overrideKind: "provider_kill" | "provider_pin" | "routing_kill_switch";
  provider: string | null;
  actor: string;
  reason: string;
  expiresAt: number | null;
  scopes: TScope[];
};

/** A factor-list version activated or rolled back to (audit log). */
export type TActivationFact = { kind: "activation"; seq: number; at: number; operation: string; version: number; actor: string; scopes: TScope[] };

export type TFact = TShiftFact | TBreakerFact | TOverrideFact | TActivationFact;

export type TStep = {
  id: string;
  seq: number;
  phase: TStepPhase;
  provider: string | null;
  firstType: string;
  lastType: string;
  ticks: number;
  capped: boolean;
  sharesFrom: TShares;
  sharesTo: TShares;
  detail: string;
  startedAt: number;
  endedAt: number;
  firstEvent: string;
  lastEvent: string;
};

export type TIncidentFactRow = {
  at: number;
  kind: "breaker" | "override" | "activation" | "close";
  provider: string | null;
  summary: string;
  data: unknown;
  source: string;
};

export type TIncidentRecord = TScope & {
  id: string;
  provider: string | null;
  state: TIncidentState;
  severity: TIncidentSeverity;
  title: string;
  causeKind: TCauseKind;
  causeDetail: string;
  causeSource: string;
  causeEvidence: Record<string, unknown>;
  startedAt: number;
  recoveredAt: number | null;
  failbackDoneAt: number | null;
  endedAt: number | null;
  endReason: string | null;
  lastFactAt: number;
};

/** One row of the fleet list. */
export type TIncidentListItem = TIncidentRecord & { steps: number; facts: number; headline: string | null };

export type TIncidentFilter = { operation?: string | null; region?: string | null; state?: "open" | "resolved" | "all" };

/** A step as the incident page shows it, with its sentence ("provider_A 99% → 1% in 4 steps over 2 min"). */
export type TStepView = TStep & { summary: string };

export type TDeliveryView = {
  id: string;
  channel: string;
  kind: string;
  status: string;
  attempts: { at: number; statusCode: number | null; error: string | null; durationMs: number }[];
};

export type TIncidentDetail = {
  incident: TIncidentRecord;
  steps: TStepView[];
  facts: TIncidentFactRow[];
  /** The scope's planned shares now. */
  sharesNow: TShares;
  /** The breakers of the scope's providers now. */
  breakers: { provider: string; state: string; since: number }[];
  deliveries: TDeliveryView[];
};
