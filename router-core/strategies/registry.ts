import type { TStrategyName } from "../policy/names";
import { priceLatencyPenaltyStrategy } from "./price-latency-penalty";
import { priceWeightedStrategy } from "./price-weighted";
import { priorityFailoverStrategy } from "./priority-failover";
import type { RoutingStrategy } from "./strategy";
import { weightedRoundRobinStrategy } from "./weighted-round-robin";
import { weightedScoreStrategy } from "./weighted-score";

export const STRATEGIES: Readonly<Record<TStrategyName, RoutingStrategy>> = Object.freeze({
  weighted_score: weightedScoreStrategy,
  price_weighted: priceWeightedStrategy,
  price_latency_penalty: priceLatencyPenaltyStrategy,
  weighted_round_robin: weightedRoundRobinStrategy,
  priority_failover: priorityFailoverStrategy,
});
