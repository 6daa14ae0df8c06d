import { createSimulatedClock } from "../clock";
import {
  breakerKey,
  breakerView,
  createCircuitBreaker,
  type TCircuitBreaker,
  type TCircuitBreakerState,
} from "../control/circuit-breaker";
import {
  correlateRegionalBreakers,
  extendFailureRun,
  NO_FAILURE_RUN,
  DEFAULT_BREAKER_CORRELATION,
  releaseHeldBreakers,
  resolveBreakerCorrelation,
  type TBreakerCorrelationConfig,
} from "../control/breaker-correlation";
import {
  createControllerState,
  stepController,
  type TControllerConfig,
  type TControllerEvent,
  type TControllerState,
} from "../control/controller";
import { createQuotaState, observeThrottle, quotaView, type TQuotaState } from "../control/quota-tracker";
import { decide } from "../decision/decide";
import { scoreCandidates } from "../decision/score-candidates";
import { createBucket, recordBusinessOutcome, recordIncident, recordProviderCall, type TMetricBucket } from "../metrics/bucket";
import { createMetricStore, type MetricStore } from "../metrics/store";
import type { TFactorList } from "../policy/schema";
import type { Random } from "../random";
import type { TBreakerView, TProviderInfo, TQuotaView, TRequestContext, TRouterState } from "../types";
import type { ReplayPolicy } from "./engine";

/**
 * How the replay wires router-core around a factor list. These are properties of the router
 * deployment, not of the factor list or the scenario; each default is the engineering choice
 * that lets the paper's Listing 1 act on the evidence the scenarios produce (see README).
 */
export type TRouterWiring = {
  /** Controller cadence. The paper refreshes every 30 s; a tick every 10 s moves shares under the same per-minute cap (the budget is pro-rated) and reacts up to 20 s sooner. */
  tickSeconds: number;
  /** Metric bucket width; the paper's per-minute cadence. Windows cover 5 to 6 buckets, cheap enough to re-read every tick. */
  bucketSeconds: number;
  /** One breaker per provider and region, so a regional failure opens only that region's circuit. */
  regionScopedBreakers: boolean;
  /**
   * With region-scoped breakers: a provider's breakers opening in several regions at once count as
   * a provider-wide failure (control/breaker-correlation.ts). `min_regions: 0` turns it off.
   */
  breakerCorrelation: TBreakerCorrelationConfig;
  /**
   * Put every secondary on the probe floor from the start. A secondary with no traffic has no
   * metrics, scores on safe defaults and can never out-score a degrading incumbent; the floor
   * keeps its evidence flowing (paper 4.10).
   */
  probeSecondaries: boolean;
  /** How old every metric the router sees is (stale-telemetry scenario, sensitivity). */
  telemetryDelaySeconds: number;
};

export const DEFAULT_ROUTER_WIRING: Readonly<TRouterWiring> = Object.freeze({
  tickSeconds: 10,
  bucketSeconds: 60,
  regionScopedBreakers: true,
  breakerCorrelation: DEFAULT_BREAKER_CORRELATION,
  probeSecondaries: true,
  telemetryDelaySeconds: 0,
});

export type TFactorListPolicy = ReplayPolicy & {
  /** Controller events so far, every region. */
  readonly events: readonly TControllerEvent[];
  /** Decisions taken through decide(). */
  decisions(): number;
};

export function createFactorListPolicy(
  policy: TFactorList,
  providers: readonly string[],
  regions: readonly string[],
  costPerRequest: number,
  wiring: Partial<TRouterWiring> = {},
): TFactorListPolicy {
  const w = { ...DEFAULT_ROUTER_WIRING, ...wiring };
  const op = policy.operation;
  const clock = createSimulatedClock(0);
  let draw = 0;
  // decide() takes exactly one draw per call: hand it the request's pre-drawn routing uniform.
  const random: Random = { next: () => draw };
  const catalog: TProviderInfo[] = providers.map((key) => ({
    key,
    regions: ["*"],
    complianceTags: [],
    costPerRequest,
    credentialStatus: "valid",
    enabled: true,
  }));
  const index = new Map(providers.map((p, i) => [p, i]));
  const priority = policy.providers.length > 0 ? policy.providers : providers;
  const controllerConfig: TControllerConfig = {
    priority,
    hysteresis_score_margin: policy.hysteresis_score_margin,
    safety: policy.safety,
    min_sample_size: policy.min_sample_size,
  };
  const windowOpts = (now: number) => ({ now, windowMinutes: policy.metric_window_minutes, minSampleSize: policy.min_sample_size });
  const retainMinutes = policy.metric_window_minutes + w.telemetryDelaySeconds / 60 + 1;
  const store: MetricStore = createMetricStore({ bucketSeconds: w.bucketSeconds, retainMinutes });

  const breaker: TCircuitBreaker = createCircuitBreaker(policy.circuit_breaker);
  const correlation = resolveBreakerCorrelation(w.breakerCorrelation);
  const correlate = w.regionScopedBreakers && correlation.min_regions > 0 && regions.length > 1;
  const breakerKeys: string[][] = providers.map((p) => regions.map((r) => (w.regionScopedBreakers ? breakerKey(p, r) : breakerKey(p))));
  const breakerStates = new Map<string, TCircuitBreakerState>();
  for (const row of breakerKeys) for (const k of row) breakerStates.set(k, breaker.initial(0));
  /** Per provider, its failures since its last success in any region (correlation's provider-wide run). */
  const failureRuns = providers.map(() => NO_FAILURE_RUN);
  let breakerViews: Record<string, TBreakerView> = {};
  let breakerViewsUntil = -1;

  const quotaStates: TQuotaState[] = providers.map((p) => createQuotaState(p, {}, 0));
  let quotaViewsUntil = -1;

  const controllers: TControllerState[] = regions.map((r) => {
    const s = createControllerState(op, r, controllerConfig, 0);
    return w.probeSecondaries ? { ...s, probeFloor: priority.slice(1) } : s;
  });
  const states: TRouterState[] = regions.map(() => ({ providers: catalog, metrics: {}, breakers: {}, quotas: {}, shares: null }));
  const contexts: TRequestContext[] = regions.map((region) => ({ operation: op, region, requestId: "replay" }));
  const events: TControllerEvent[] = [];
  let decisions = 0;

  /*
   * This replay is one router instance: it counts its outcomes in delta buckets and the shared
   * store merges them, as instances flush deltas to Postgres (DESIGN.md "Scale past one
   * machine"). A bucket is delivered once it is complete and older than the telemetry delay, so
   * the router sees exactly the metrics a delayed pipeline would show it.
   */
  const widthMs = w.bucketSeconds * 1000;
  const delayMs = w.telemetryDelaySeconds * 1000;
  const open = new Map<number, TMetricBucket[]>();
  const deltaFor = (provider: number, region: number, at: number): TMetricBucket => {
    const start = Math.floor(at / widthMs) * widthMs;
    let row = open.get(start);
    if (row === undefined) {
      row = new Array<TMetricBucket>(providers.length * regions.length);
      open.set(start, row);
    }
    const i = provider * regions.length + region;
    let b = row[i];
    if (b === undefined) {
      b = createBucket(providers[provider]!, op, regions[region]!, at, widthMs);
      row[i] = b;
    }
    return b;
  };
  const deliver = (now: number) => {
    for (const [start, row] of open) {
      // Delayed telemetry arrives per complete bucket once the delay has passed; undelayed, all counted so far.
      if (delayMs > 0 && start + widthMs > now - delayMs) continue;
      store.merge(row.filter((b) => b !== undefined));
      open.delete(start);
    }
  };

  const refreshBreakerViews = (now: number) => {
    const views: Record<string, TBreakerView> = {};
    let until = Infinity;
    for (const [k, s] of breakerStates) {
      views[k] = breakerView(s, now);
      // A view changes with time only while open (→ half_open) or while probe slots await release.
      if (s.state === "open" && s.openUntil !== null && s.openUntil > now) until = Math.min(until, s.openUntil);
      if (s.probeSlotsFreeAt !== null && s.probeSlotsFreeAt > now) until = Math.min(until, s.probeSlotsFreeAt);
    }
    breakerViews = views;
    breakerViewsUntil = until;
    for (const s of states) s.breakers = views;
  };
  const refreshQuotaViews = (now: number) => {
    const views: Record<string, TQuotaView> = {};
    let until = Infinity;
    quotaStates.forEach((q, i) => {
      views[providers[i]!] = quotaView(q, now);
      if (q.throttledUntil !== null && q.throttledUntil > now) until = Math.min(until, q.throttledUntil);
    });
    quotaViewsUntil = until;
    for (const s of states) s.quotas = views;
  };

  refreshBreakerViews(0);
  refreshQuotaViews(0);

  return {
    tickMs: w.tickSeconds * 1000,
    events,
    decisions: () => decisions,
    tick(now) {
      clock.set(Math.max(clock.now(), now));
      deliver(now);
      store.prune(now);
      if (now >= breakerViewsUntil) refreshBreakerViews(now);
      if (now >= quotaViewsUntil) refreshQuotaViews(now);
      for (let r = 0; r < regions.length; r++) {
        const state = states[r]!;
        state.metrics = store.snapshots(op, regions[r]!, providers, windowOpts(now));
        const scored = scoreCandidates(policy, state, contexts[r]!, clock);
        const result = stepController(
          controllers[r]!,
          {
            candidates: scored.map((c) => ({
              provider: c.provider,
              eligible: c.passedGates,
              score: c.score,
              sampleCount: c.sampleCount,
              failedGates: c.failedGates,
            })),
          },
          controllerConfig,
          now,
        );
        controllers[r] = result.state;
        states[r] = { ...state, shares: result.shares };
        for (const e of result.events) events.push(e);
      }
    },
    route(now, region, u) {
      clock.set(Math.max(clock.now(), now));
      if (now >= breakerViewsUntil) refreshBreakerViews(now);
      if (now >= quotaViewsUntil) refreshQuotaViews(now);
      draw = u;
      decisions++;
      const record = decide(contexts[region]!, states[region]!, policy, clock, random);
      if (record.selected === null) return -1;
      const p = index.get(record.selected)!;
      const k = breakerKeys[p]![region]!;
      if (breakerViews[k]?.state === "half_open") {
        breakerStates.set(k, breaker.step(breakerStates.get(k)!, { type: "probe_started" }, now));
        refreshBreakerViews(now);
      }
      return p;
    },
    observe(now, region, provider, result) {
      const b = deltaFor(provider, region, now);
      recordProviderCall(b, { at: now, latencyMs: result.latencyMs, ok: result.ok });
      recordBusinessOutcome(b, result.completed ? { at: now, completed: true } : { at: now, completed: false, failureStage: "provider_call" });
      const k = breakerKeys[provider]![region]!;
      const before = breakerStates.get(k)!;
      const after = breaker.step(before, result.ok ? { type: "success" } : { type: "failure", detail: result.kind }, now);
      breakerStates.set(k, after);
      let changed = after.state !== before.state || after.probeSuccesses !== before.probeSuccesses;
      if (after.state === "open" && before.state !== "open") recordIncident(b, now);
      if (correlate) failureRuns[provider] = extendFailureRun(failureRuns[provider]!, region, result.ok);
      if (correlate && (changed || !result.ok)) {
        const keys = breakerKeys[provider]!;
        const group = keys.map((key) => (key === k ? before : breakerStates.get(key)!));
        const stepped = keys.map((key) => breakerStates.get(key)!);
        const released = releaseHeldBreakers(group, stepped, now, correlation);
        const next = correlateRegionalBreakers(released, now, breaker, correlation, failureRuns[provider]);
        keys.forEach((key, r) => {
          const s = next[r]!;
          if (s === stepped[r]) return;
          if (s.state === "open" && stepped[r]!.state !== "open") recordIncident(deltaFor(provider, r, now), now);
          breakerStates.set(key, s);
          changed = true;
        });
      }
      if (changed) refreshBreakerViews(now);
      if (result.kind === "throttled") {
        quotaStates[provider] = observeThrottle(quotaStates[provider]!, now, null);
        refreshQuotaViews(now);
      }
    },
    shares(region) {
      const s = controllers[region]!.shares;
      return providers.map((p) => s[p] ?? 0);
    },
  };
}
