/**
 * The closed set of reason codes a decision can carry. Dashboards and alerts key on these, so a
 * new code is a schema change, not a string someone types.
 *
 * - share_weighted:              weighted_score drew among eligible providers by the controller's
 *                                shares for (operation, region), renormalised over the eligible
 * - initial_share_primary:       weighted_score without usable shares: all traffic to the first
 *                                eligible provider in static priority order
 * - price_weighted:              the token-gateway article (docs/references.md) algorithm 1 (BasePrice / Price)
 * - price_latency_penalty:       the token-gateway article (docs/references.md) algorithm 2 (price weight × clamped p99 penalty)
 * - weighted_round_robin:        the token-gateway article (docs/references.md) algorithm 3, interleaved by weight
 * - priority_failover:           first eligible provider in static priority order (the LLM-routing article (docs/references.md))
 * - least_bad_guardrail:         every provider passing the hard gates broke a soft guardrail;
 *                                the one with the smallest relative excess was chosen
 * - pinned:                      an unexpired operator pin, and the pinned provider passed the pin gates
 * - pin_ineligible:              a pin was set but its provider failed a pin gate (region,
 *                                compliance, credentials, kill); normal routing chose instead
 * - routing_killed_static_order: adaptive routing switched off; first provider in static
 *                                priority order passing the hard gates
 * - no_eligible_provider:        every candidate failed a hard gate; the fallback policy answered
 * - no_candidates:               the catalog holds no provider for this operation or request
 */
export const REASON_CODES = [
  "share_weighted",
  "initial_share_primary",
  "price_weighted",
  "price_latency_penalty",
  "weighted_round_robin",
  "priority_failover",
  "least_bad_guardrail",
  "pinned",
  "pin_ineligible",
  "routing_killed_static_order",
  "no_eligible_provider",
  "no_candidates",
] as const;

export type TReasonCode = (typeof REASON_CODES)[number];
