/** What decide takes: the operation, the request's region, its id (the idempotency key) and routing attributes. */
export type TDecideRequest = {
  operation: string;
  region: string;
  /** The caller's id for this request; a retry with the same id gets the same decision. Omitted: one is generated. */
  requestId?: string;
  attributes?: Record<string, string>;
  /** This call's timeout per attempt, ms; default the client's. */
  timeoutMs?: number;
  /** "full": Switchyard answers with the whole decision record (TDecision.record); default the compact answer. */
  explain?: "compact" | "full";
};

/** Where a decision came from. */
export type TDecisionSource = "switchyard" | "last_decision" | "static" | "local";

/** One candidate of Switchyard's decision record (the fields the client reads; the record has more). */
export type TCandidate = {
  provider: string;
  eligible: boolean;
  score: number | null;
  share: number | null;
  selectionProbability: number;
  [key: string]: unknown;
};

/** One provider of a decision's failover order, with the probability it had of being selected. */
export type TOrderEntry = { provider: string; selectionProbability: number };

/** decide's default answer: what a caller acts on (the full record is GET /api/v1/decisions/{id} or `explain: "full"`). */
export type TDecisionAnswer = {
  decisionId: string;
  operation: string;
  region: string;
  requestId: string;
  policyVersion: string | null;
  selected: string | null;
  reasonCode: string;
  fallback: Record<string, unknown> | null;
  degraded: boolean;
  /** The selected provider, then the other eligible ones by score. */
  order: TOrderEntry[];
};

/** Switchyard's full decision record, as decide answers it with `explain: "full"`. */
export type TDecisionRecord = {
  decisionId: string;
  operation: string;
  region: string;
  requestId: string;
  selected: string | null;
  reasonCode: string;
  policyVersion: string | null;
  candidates: TCandidate[];
  [key: string]: unknown;
};

export type TDecision = {
  decisionId: string;
  operation: string;
  region: string;
  requestId: string;
  /** The provider to call; null when nothing is eligible. */
  selected: string | null;
  /** Failover order: the selected provider, then the other eligible ones by score. */
  order: string[];
  /** True when Switchyard did not answer and the client decided from its last decision or static order. */
  failStatic: boolean;
  source: TDecisionSource;
  /** Why a fail-static decision was made (timeout, unreachable, overloaded…). */
  reason?: string;
  /** Switchyard's full record, when asked for with `explain: "full"` (absent for fail-static decisions). */
  record?: TDecisionRecord;
};

export type TOutcomeErrorClass = "timeout" | "http_5xx" | "http_4xx" | "throttled" | "quota" | "regional" | "network" | "protocol" | "other";

export type TProviderCallOutcome = {
  type: "provider_call";
  decisionId: string;
  provider: string;
  status: "success" | "failure";
  errorClass?: TOutcomeErrorClass;
  httpStatus?: number;
  latencyMs: number;
  retryCount: number;
  ttfbMs?: number;
};

export type TBusinessOutcome = {
  type: "business";
  decisionId: string;
  completed: boolean;
  failureStage?: "before_provider" | "provider_call" | "user_action" | "downstream_app" | "unknown";
  withinSla: boolean;
  provider?: string;
};

export type TOutcome = TProviderCallOutcome | TBusinessOutcome;

export type TExecuteRequest = {
  region: string;
  /** LLM operations: {messages, system?, maxTokens?, temperature?}; others: what the provider templates read. */
  input: Record<string, unknown>;
  requestId?: string;
  attributes?: Record<string, string>;
  deadlineMs?: number;
  /** Executes at most once per provider for this key; omitted: one is generated, so retries are safe. */
  idempotencyKey?: string;
  timeoutMs?: number;
};

export type TExecuteAttempt = {
  provider: string;
  errorClass: "transient" | "rate_limit" | "permanent" | null;
  outcomeErrorClass: string | null;
  httpStatus: number | null;
  latencyMs: number;
  called: boolean;
  detail?: string;
};

export type TExecuteAnswer = {
  decisionId: string;
  provider: string;
  result: {
    text?: string;
    model?: string;
    finishReason?: string | null;
    usage?: { inputTokens: number; outputTokens: number };
    status: number;
    body?: unknown;
    [key: string]: unknown;
  };
  attempts: TExecuteAttempt[];
  costEstimate: number | null;
  cached?: { ageSeconds: number };
};

/**
 * Counters. Records: for fail-static decisions `made = reported + refused + dropped + pending`, for
 * local ones `+ sampledOut` (routine decisions whose record was left out of the sample). Counts:
 * every fail-static and local decision, reported exactly per minute, same accounting.
 */
export type TClientStats = {
  decisions: { switchyard: number; failStatic: number };
  failStatic: { made: number; reported: number; refused: number; dropped: number; pending: number };
  /** Records of decisions made by LocalRouter. */
  local: { made: number; reported: number; refused: number; dropped: number; pending: number; sampledOut: number };
  /** Decisions counted in count reports (POST /api/v1/decisions/counts): every local and fail-static one. */
  counts: { made: number; reported: number; refused: number; dropped: number; pending: number };
  outcomes: { queued: number; sent: number; refused: number; dropped: number; pending: number };
  retries: number;
};

/** What GET /api/v1/routing/snapshot carries: enough for router-core's decide() per operation and region. */
export type TRoutingSnapshot = {
  providers: unknown[];
  operations: Record<string, { policyVersion: string; policy: unknown; shadow: unknown; regions: Record<string, Record<string, unknown>> }>;
  dbAvailable: boolean;
};
