import type { ProviderModel, TCondition } from "./model";
import type { TTrafficSpec } from "./traffic";

/**
 * The six scenarios of issue 4 (the paper's section 8, docs/references.md): 60 minutes × 600 requests, providers A
 * (primary), B, C of equal cost, regions EU 50% / NA 30% / APAC 20%, baseline success 99.5%,
 * baseline p95 380 / 420 / 500 ms. A degrades from minute 20 to 40 unless stated. These
 * definitions are fixed: results are only comparable if nobody tunes them.
 */
export const SCENARIO_IDS = ["outage", "latency", "partial", "quota", "regional", "stale"] as const;
export type TScenarioId = (typeof SCENARIO_IDS)[number];

export const PROVIDERS = ["A", "B", "C"] as const;
export const REGIONS = ["EU", "NA", "APAC"] as const;
export const TRAFFIC: TTrafficSpec = { minutes: 60, requestsPerMinute: 600, regions: REGIONS, regionWeights: [0.5, 0.3, 0.2] };
export const BASELINE_FAILURE_P = 0.005;
export const BASELINE_P95_MS: readonly number[] = [380, 420, 500];
export const COST_PER_REQUEST = 0.0075;

export type TScenario = {
  id: TScenarioId;
  label: string;
  /** Degradation window [from, to) in minutes. */
  degradedFrom: number;
  degradedTo: number;
  /** Regions the degradation affects (shift-away minutes are measured there). */
  affectedRegions: readonly string[];
  /** How old every metric the router sees is, in seconds. */
  telemetryDelaySeconds: number;
  /** Per-minute provider quota of A inside the window, else null. */
  quotaPerMinute: number | null;
  model: ProviderModel;
};

const A = 0;
const EU = 0;

function baseline(provider: number): TCondition {
  return {
    errorP: BASELINE_FAILURE_P,
    timeoutP: 0,
    completionFailP: 0,
    p95Ms: BASELINE_P95_MS[provider]!,
    quotaPerMinute: null,
    degraded: false,
  };
}

function scenarioModel(degrade: (c: TCondition, region: number) => TCondition | null, from: number, to: number): ProviderModel {
  // Conditions are precomputed per (provider, region, in/out of window): condition() runs per request.
  const normal = PROVIDERS.map((_, p) => baseline(p));
  const degraded = REGIONS.map((_, r) => degrade(baseline(A), r) ?? normal[A]!);
  return {
    providers: PROVIDERS,
    regions: REGIONS,
    condition: (provider, region, minute) => (provider === A && minute >= from && minute < to ? degraded[region]! : normal[provider]!),
  };
}

function make(
  id: TScenarioId,
  label: string,
  degrade: (c: TCondition, region: number) => TCondition | null,
  opts: { from?: number; to?: number; regions?: readonly string[]; delay?: number; quota?: number } = {},
): TScenario {
  const from = opts.from ?? 20;
  const to = opts.to ?? 40;
  return {
    id,
    label,
    degradedFrom: from,
    degradedTo: to,
    affectedRegions: opts.regions ?? REGIONS,
    telemetryDelaySeconds: opts.delay ?? 0,
    quotaPerMinute: opts.quota ?? null,
    model: scenarioModel(degrade, from, to),
  };
}

const partial = (c: TCondition): TCondition => ({ ...c, completionFailP: 0.15, degraded: true });

export const SCENARIOS: Readonly<Record<TScenarioId, TScenario>> = {
  outage: make("outage", "Complete outage", (c) => ({ ...c, errorP: 0.5, timeoutP: 0.5, degraded: true })),
  latency: make("latency", "Latency spike", (c) => ({ ...c, p95Ms: c.p95Ms * 5, timeoutP: 0.01, degraded: true })),
  partial: make("partial", "Partial degradation", partial),
  quota: make("quota", "Quota exhaustion", (c) => ({ ...c, quotaPerMinute: 300, degraded: true }), { from: 14, to: 46, quota: 300 }),
  regional: make("regional", "Regional failure", (c, r) => (r === EU ? { ...c, errorP: 0.5, timeoutP: 0.5, degraded: true } : null), {
    regions: ["EU"],
  }),
  stale: make("stale", "Stale telemetry", partial, { delay: 120 }),
};
