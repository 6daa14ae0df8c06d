import { parseFactorList } from "../policy/codec";
import type { TFactorList } from "../policy/schema";
import { createCircuitBreakerPolicy, createConventionalFailoverPolicy, createStaticPrimaryPolicy } from "./baselines";
import { runReplay, type ReplayPolicy, type TRunResult } from "./engine";
import { createFactorListPolicy, type TRouterWiring } from "./factor-list-policy";
import { COST_PER_REQUEST, PROVIDERS, REGIONS, SCENARIOS, TRAFFIC, type TScenario, type TScenarioId } from "./scenarios";
import { generateTraffic, type TTraffic } from "./traffic";

export const POLICY_IDS = ["static", "failover", "breaker", "factor_list"] as const;
export type TPolicyId = (typeof POLICY_IDS)[number];
export const POLICY_LABELS: Readonly<Record<TPolicyId, string>> = {
  static: "Static primary",
  failover: "Conventional failover",
  breaker: "Circuit breaker",
  factor_list: "Factor list",
};

/** The paper's Listing 1, verbatim: the factor-list policy's default. */
export const LISTING_1_YAML = `operation: SEND_SMS
refresh_interval_seconds: 30
metric_window_minutes: 5
min_sample_size: 200
fallback_policy: use_secondary_then_queue
gates:
  - supports_region
  - compliance_allowed
  - quota_available
  - circuit_breaker_closed
  - metric_fresh_or_safe_default
scores:
  completion_rate_5m: {weight: 0.45, direction: higher}
  p95_latency_5m: {weight: 0.20, direction: lower}
  cost_per_request: {weight: 0.15, direction: lower}
  recent_incident_penalty: {weight: 0.10, direction: lower}
  confidence_from_sample: {weight: 0.10, direction: higher}
safety:
  max_traffic_shift_per_minute: 0.50
  primary_probe_share: 0.01
  primary_recovery_cooldown_seconds: 300
  require_reason_code: true
`;

export function listing1(): TFactorList {
  const parsed = parseFactorList(LISTING_1_YAML);
  if (!parsed.ok) throw new Error(`Listing 1 does not parse: ${parsed.errors.map((e) => e.message).join("; ")}`);
  return parsed.value;
}

/** The paper's Table 14 (docs/references.md) targets for the factor list: success rate and degraded minutes. */
export const PAPER_TABLE_14: Readonly<Record<TScenarioId, Readonly<Record<TPolicyId, { success: number; degradedMinutes: number }>>>> = {
  outage: { static: p(66.3, 20), failover: p(82.7, 10), breaker: p(92.7, 4), factor_list: p(96.0, 4) },
  latency: { static: p(99.4, 20), failover: p(99.3, 14), breaker: p(99.5, 20), factor_list: p(98.8, 2) },
  partial: { static: p(94.8, 20), failover: p(97.1, 10), breaker: p(98.5, 4), factor_list: p(98.5, 2) },
  quota: { static: p(47.4, 32), failover: p(88.5, 7), breaker: p(88.6, 7), factor_list: p(99.0, 0) },
  regional: { static: p(90.1, 20), failover: p(94.6, 10), breaker: p(97.5, 4), factor_list: p(97.9, 3) },
  stale: { static: p(94.0, 17), failover: p(96.0, 10), breaker: p(98.1, 4), factor_list: p(98.4, 2) },
};
function p(success: number, degradedMinutes: number) {
  return { success: success / 100, degradedMinutes };
}

export type TRunSpec = {
  scenario: TScenarioId;
  policy: TPolicyId;
  seed: number;
  factorList?: TFactorList;
  wiring?: Partial<TRouterWiring>;
  /** Reuse traffic across runs of the same scenario and seed (it only depends on the seed). */
  traffic?: TTraffic;
};

export function scenarioTraffic(seed: number): TTraffic {
  return generateTraffic(TRAFFIC, seed);
}

export function createPolicy(scenario: TScenario, spec: Pick<TRunSpec, "policy" | "factorList" | "wiring">): ReplayPolicy {
  switch (spec.policy) {
    case "static":
      return createStaticPrimaryPolicy();
    case "failover":
      return createConventionalFailoverPolicy({ degradedFrom: scenario.degradedFrom, degradedTo: scenario.degradedTo });
    case "breaker":
      return createCircuitBreakerPolicy(PROVIDERS.length);
    case "factor_list":
      return createFactorListPolicy(spec.factorList ?? listing1(), PROVIDERS, REGIONS, COST_PER_REQUEST, {
        ...spec.wiring,
        telemetryDelaySeconds: scenario.telemetryDelaySeconds + (spec.wiring?.telemetryDelaySeconds ?? 0),
      });
  }
}

export function runScenario(spec: TRunSpec): TRunResult {
  const scenario = SCENARIOS[spec.scenario];
  const traffic = spec.traffic ?? scenarioTraffic(spec.seed);
  return runReplay(
    {
      model: scenario.model,
      traffic,
      degradedFrom: scenario.degradedFrom,
      affectedRegions: scenario.affectedRegions.map((r) => REGIONS.indexOf(r as (typeof REGIONS)[number])),
    },
    createPolicy(scenario, spec),
  );
}
