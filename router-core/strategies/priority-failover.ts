import { selectFirst, type RoutingStrategy } from "./strategy";

/** the LLM-routing article's ordered fallback chain: the first eligible provider in static priority order. */
export const priorityFailoverStrategy: RoutingStrategy = {
  name: "priority_failover",
  select({ eligible, u, probabilities }) {
    return { index: selectFirst(eligible, u, probabilities), reasonCode: "priority_failover" };
  },
};
