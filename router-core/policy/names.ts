/**
 * The closed vocabularies a factor list may use. Kept apart from the implementations so the
 * schema can validate names without importing gate or scoring code.
 */

export const GATE_NAMES = [
  "supports_region",
  "compliance_allowed",
  "credentials_valid",
  "quota_available",
  "circuit_breaker_closed",
  "metric_fresh_or_safe_default",
  "not_killed",
] as const;
export type TGateName = (typeof GATE_NAMES)[number];

export type TScoreDirection = "higher" | "lower";

/**
 * Each score's natural direction. A factor list must state the same one: a direction is part of
 * the metric's meaning, and a flipped one would silently reward the worse provider.
 * The `_5m` suffixes are the paper's names; the window actually used is metric_window_minutes.
 */
export const SCORE_DIRECTIONS = {
  completion_rate_5m: "higher",
  p95_latency_5m: "lower",
  p99_latency_5m: "lower",
  error_rate_5m: "lower",
  cost_per_request: "lower",
  recent_incident_penalty: "lower",
  confidence_from_sample: "higher",
} as const satisfies Record<string, TScoreDirection>;
export type TScoreName = keyof typeof SCORE_DIRECTIONS;
export const SCORE_NAMES = Object.keys(SCORE_DIRECTIONS) as TScoreName[];

export const STRATEGY_NAMES = ["weighted_score", "price_weighted", "price_latency_penalty", "weighted_round_robin", "priority_failover"] as const;
export type TStrategyName = (typeof STRATEGY_NAMES)[number];

/** What a decision does when no provider is eligible (the paper's section 4.11 (docs/references.md), Table 7). */
export const FALLBACK_ACTIONS = ["queue", "degraded_message", "probe_only", "escalate"] as const;
export type TFallbackAction = (typeof FALLBACK_ACTIONS)[number];

/**
 * Factor-list fallback policies. `use_secondary_then_*` is the paper's spelling: the secondary is
 * already chosen by ordinary selection when the primary fails a gate, so the name only decides
 * the terminal action.
 */
export const FALLBACK_POLICIES = {
  use_secondary_then_queue: "queue",
  use_secondary_then_degraded_message: "degraded_message",
  use_secondary_then_escalate: "escalate",
  queue: "queue",
  degraded_message: "degraded_message",
  probe_only: "probe_only",
  escalate: "escalate",
} as const satisfies Record<string, TFallbackAction>;
export type TFallbackPolicyName = keyof typeof FALLBACK_POLICIES;
export const FALLBACK_POLICY_NAMES = Object.keys(FALLBACK_POLICIES) as TFallbackPolicyName[];

export const STALE_POLICIES = ["safe_default", "penalty", "exclude"] as const;
export type TStalePolicy = (typeof STALE_POLICIES)[number];
