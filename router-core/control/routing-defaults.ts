import type { TFactorList } from "../policy/schema";
import { DEFAULT_BREAKER_CORRELATION, type TBreakerCorrelationConfig } from "./breaker-correlation";
import type { TControllerConfig } from "./controller-types";
import { DEFAULT_RECOVERY_PROBE_SHARE } from "./regain-margin";

/**
 * The routing defaults the data plane and the replay share, so the evaluation measures the router
 * production runs. Anything that changes routing is either here or in the factor list; the replay
 * adds only the scenario's conditions (telemetry delay), never a wiring of its own.
 */
export type TRoutingDefaults = {
  /** Controller cadence. The shift cap is pro-rated per tick, so the cadence changes reaction time, not the per-minute budget. */
  tickSeconds: number;
  /** Metric bucket width; every instance must use the same one, or buckets cannot be merged exactly. */
  bucketSeconds: number;
  /** One breaker per provider and region, so a regional failure opens only that region's circuit. */
  regionScopedBreakers: boolean;
  /** Regional breakers of one provider opening together count as a provider-wide failure (control/breaker-correlation.ts). */
  breakerCorrelation: TBreakerCorrelationConfig;
  /**
   * The most a displaced provider that looks recovered is probed at while its samples prove it
   * (control/regain-margin.ts): the probe budget of recovery. It gets only what brings its window
   * to min_sample_size samples, so at high volume it is the probe floor itself.
   */
  recoveryProbeShare: number;
};

export const ROUTING_DEFAULTS: Readonly<TRoutingDefaults> = Object.freeze({
  tickSeconds: 10,
  bucketSeconds: 60,
  regionScopedBreakers: true,
  breakerCorrelation: DEFAULT_BREAKER_CORRELATION,
  recoveryProbeShare: DEFAULT_RECOVERY_PROBE_SHARE,
});

/**
 * The controller configuration a factor list implies for a priority order (primary first). The
 * probe floor every secondary starts on comes from `safety.primary_probe_share` through
 * createControllerState, so a router always has evidence on its alternatives.
 */
export function controllerConfigFor(policy: TFactorList, priority: readonly string[]): TControllerConfig {
  return {
    priority,
    hysteresis_score_margin: policy.hysteresis_score_margin,
    safety: policy.safety,
    min_sample_size: policy.min_sample_size,
    recovery_probe_share: ROUTING_DEFAULTS.recoveryProbeShare,
    metric_window_minutes: policy.metric_window_minutes,
  };
}
