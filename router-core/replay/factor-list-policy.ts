import { createSimulatedClock, type SimulatedClock } from "../clock";
import { breakerKey, breakerView, createCircuitBreaker, type TCircuitBreaker, type TCircuitBreakerState } from "../control/circuit-breaker";
import {
  correlateRegionalBreakers,
  extendFailureRun,
  NO_FAILURE_RUN,
  releaseHeldBreakers,
  resolveBreakerCorrelation,
  type TBreakerCorrelationConfig,
  type TProviderFailureRun,
} from "../control/breaker-correlation";
import { createControllerState, stepController, type TControllerConfig, type TControllerEvent, type TControllerState } from "../control/controller";
import { controllerConfigFor, ROUTING_DEFAULTS, type TRoutingDefaults } from "../control/routing-defaults";
import { createQuotaState, observeThrottle, quotaView, type TQuotaState } from "../control/quota-tracker";
import { decide } from "../decision/decide";
import { controllerEvidence, scoreCandidates } from "../decision/score-candidates";
import { createBucket, recordBusinessOutcome, recordIncident, recordProviderCall, type TMetricBucket } from "../metrics/bucket";
import { createMetricStore, type MetricStore } from "../metrics/store";
import type { TFactorList } from "../policy/schema";
import type { Random } from "../random";
import type { TBreakerView, TOverrides, TProviderInfo, TQuotaView, TRequestContext, TRouterState } from "../types";
import type { ReplayPolicy } from "./engine";
import type { TCallResult } from "./model";

/**
 * How the replay wires router-core around a factor list: the shared routing defaults the data
 * plane runs (control/routing-defaults.ts), plus the scenario's telemetry delay. Overrides are
 * for experiments (sensitivity, the breaker-correlation comparison); the evaluation's numbers
 * come from ROUTING_DEFAULTS unchanged.
 */
export type TRouterWiring = TRoutingDefaults & {
  /** How old every metric the router sees is (stale-telemetry scenario, sensitivity): a condition of the scenario, not of the router. */
  telemetryDelaySeconds: number;
  /**
   * The deployment's provider catalogue: the regions and compliance tags the region and compliance
   * gates read. Providers it does not list serve every region and hold no tags.
   */
  catalog?: readonly Pick<TProviderInfo, "key" | "regions" | "complianceTags">[];
};

export const DEFAULT_ROUTER_WIRING: Readonly<TRouterWiring> = Object.freeze({ ...ROUTING_DEFAULTS, telemetryDelaySeconds: 0 });

export type TFactorListPolicy = ReplayPolicy & {
  /** Controller events so far, every region. */
  readonly events: readonly TControllerEvent[];
  /** Decisions taken through decide(). */
  decisions(): number;
  /** Operator overrides from now on, every region (a recorded stream's kills and pins); undefined clears them. */
  override(overrides: TOverrides | undefined): void;
};

export function createFactorListPolicy(
  policy: TFactorList,
  providers: readonly string[],
  regions: readonly string[],
  costPerRequest: number | Readonly<Record<string, number>>,
  wiring: Partial<TRouterWiring> = {},
): TFactorListPolicy {
  const w = { ...DEFAULT_ROUTER_WIRING, ...wiring };
  const r = createReplayRouter(policy, providers, regions, costPerRequest, w);
  return {
    tickMs: w.tickSeconds * 1000,
    events: r.events,
    decisions: () => r.decisions,
    override(overrides) {
      r.states = r.states.map((state) => ({ ...state, overrides }));
    },
    tick: (now) => tickRouter(r, now),
    route: (now, region, u) => routeRequest(r, now, region, u),
    observe: (now, region, provider, result) => observeOutcome(r, now, region, provider, result),
    shares(region) {
      const s = r.controllers[region]!.shares;
      return providers.map((p) => s[p] ?? 0);
    },
  };
}

/** One replayed router instance: its metric pipeline, breakers, quotas and per-region controllers. */
type TReplayRouter = {
  policy: TFactorList;
  op: string;
  providers: readonly string[];
  regions: readonly string[];
  clock: SimulatedClock;
  /** decide() takes exactly one draw per call: `random` hands it the request's pre-drawn routing uniform. */
  draw: number;
  random: Random;
  index: Map<string, number>;
  controllerConfig: TControllerConfig;
  store: MetricStore;
  /** Delta buckets by start time, per provider × region, not yet delivered to the store. */
  open: Map<number, TMetricBucket[]>;
  widthMs: number;
  delayMs: number;
  breaker: TCircuitBreaker;
  correlation: TBreakerCorrelationConfig;
  correlate: boolean;
  breakerKeys: string[][];
  breakerStates: Map<string, TCircuitBreakerState>;
  /** Per provider, its failures since its last success in any region (correlation's provider-wide run). */
  failureRuns: TProviderFailureRun[];
  breakerViews: Record<string, TBreakerView>;
  breakerViewsUntil: number;
  quotaStates: TQuotaState[];
  quotaViewsUntil: number;
  controllers: TControllerState[];
  states: TRouterState[];
  contexts: TRequestContext[];
  events: TControllerEvent[];
  decisions: number;
};

function createReplayRouter(
  policy: TFactorList,
  providers: readonly string[],
  regions: readonly string[],
  costPerRequest: number | Readonly<Record<string, number>>,
  w: TRouterWiring,
): TReplayRouter {
  const op = policy.operation;
  const known = new Map((w.catalog ?? []).map((p) => [p.key, p]));
  const catalog: TProviderInfo[] = providers.map((key) => ({
    key,
    regions: known.get(key)?.regions ?? ["*"],
    complianceTags: known.get(key)?.complianceTags ?? [],
    costPerRequest: typeof costPerRequest === "number" ? costPerRequest : (costPerRequest[key] ?? 0),
    credentialStatus: "valid",
    enabled: true,
  }));
  const priority = policy.providers.length > 0 ? policy.providers : providers;
  const controllerConfig: TControllerConfig = controllerConfigFor(policy, priority);
  const retainMinutes = policy.metric_window_minutes + w.telemetryDelaySeconds / 60 + 1;
  const breaker: TCircuitBreaker = createCircuitBreaker(policy.circuit_breaker);
  const correlation = resolveBreakerCorrelation(w.breakerCorrelation);
  const breakerKeys: string[][] = providers.map((p) => regions.map((r) => (w.regionScopedBreakers ? breakerKey(p, r) : breakerKey(p))));
  const breakerStates = new Map<string, TCircuitBreakerState>();
  for (const row of breakerKeys) for (const k of row) breakerStates.set(k, breaker.initial(0));
  const router: TReplayRouter = {
    policy,
    op,
    providers,
    regions,
    clock: createSimulatedClock(0),
    draw: 0,
    random: { next: () => router.draw },
    index: new Map(providers.map((p, i) => [p, i])),
    controllerConfig,
    store: createMetricStore({ bucketSeconds: w.bucketSeconds, retainMinutes }),
    open: new Map(),
    widthMs: w.bucketSeconds * 1000,
    delayMs: w.telemetryDelaySeconds * 1000,
    breaker,
    correlation,
    correlate: w.regionScopedBreakers && correlation.min_regions > 0 && regions.length > 1,
    breakerKeys,
    breakerStates,
    failureRuns: providers.map(() => NO_FAILURE_RUN),
    breakerViews: {},
    breakerViewsUntil: -1,
    quotaStates: providers.map((p) => createQuotaState(p, {}, 0)),
    quotaViewsUntil: -1,
    controllers: regions.map((r) => createControllerState(op, r, controllerConfig, 0)),
    states: regions.map(() => ({ providers: catalog, metrics: {}, breakers: {}, quotas: {}, shares: null })),
    contexts: regions.map((region) => ({ operation: op, region, requestId: "replay" })),
    events: [],
    decisions: 0,
  };
  refreshBreakerViews(router, 0);
  refreshQuotaViews(router, 0);
  return router;
}

/*
 * This replay is one router instance: it counts its outcomes in delta buckets and the shared
 * store merges them, as instances flush deltas to Postgres so that several instances share one
 * view of the metrics. A bucket is delivered once it is complete and older than the telemetry delay, so
 * the router sees exactly the metrics a delayed pipeline would show it.
 */
function deltaFor(r: TReplayRouter, provider: number, region: number, at: number): TMetricBucket {
  const { widthMs, regions } = r;
  const start = Math.floor(at / widthMs) * widthMs;
  let row = r.open.get(start);
  if (row === undefined) {
    row = new Array<TMetricBucket>(r.providers.length * regions.length);
    r.open.set(start, row);
  }
  const i = provider * regions.length + region;
  let b = row[i];
  if (b === undefined) {
    b = createBucket(r.providers[provider]!, r.op, regions[region]!, at, widthMs);
    row[i] = b;
  }
  return b;
}

function deliver(r: TReplayRouter, now: number): void {
  for (const [start, row] of r.open) {
    // Delayed telemetry arrives per complete bucket once the delay has passed; undelayed, all counted so far.
    if (r.delayMs > 0 && start + r.widthMs > now - r.delayMs) continue;
    r.store.merge(row.filter((b) => b !== undefined));
    r.open.delete(start);
  }
}

function refreshBreakerViews(r: TReplayRouter, now: number): void {
  const views: Record<string, TBreakerView> = {};
  let until = Infinity;
  for (const [k, s] of r.breakerStates) {
    views[k] = breakerView(s, now);
    // A view changes with time only while open (→ half_open) or while probe slots await release.
    if (s.state === "open" && s.openUntil !== null && s.openUntil > now) until = Math.min(until, s.openUntil);
    if (s.probeSlotsFreeAt !== null && s.probeSlotsFreeAt > now) until = Math.min(until, s.probeSlotsFreeAt);
  }
  r.breakerViews = views;
  r.breakerViewsUntil = until;
  for (const s of r.states) s.breakers = views;
}

function refreshQuotaViews(r: TReplayRouter, now: number): void {
  const views: Record<string, TQuotaView> = {};
  let until = Infinity;
  r.quotaStates.forEach((q, i) => {
    views[r.providers[i]!] = quotaView(q, now);
    if (q.throttledUntil !== null && q.throttledUntil > now) until = Math.min(until, q.throttledUntil);
  });
  r.quotaViewsUntil = until;
  for (const s of r.states) s.quotas = views;
}

/** Delivers telemetry, then steps every region's controller on the scores decide() would use. */
function tickRouter(r: TReplayRouter, now: number): void {
  const { policy, clock, op } = r;
  clock.set(Math.max(clock.now(), now));
  deliver(r, now);
  r.store.prune(now);
  if (now >= r.breakerViewsUntil) refreshBreakerViews(r, now);
  if (now >= r.quotaViewsUntil) refreshQuotaViews(r, now);
  for (let i = 0; i < r.regions.length; i++) {
    const state = r.states[i]!;
    state.metrics = r.store.snapshots(op, r.regions[i]!, r.providers, {
      now,
      windowMinutes: policy.metric_window_minutes,
      minSampleSize: policy.min_sample_size,
    });
    const scored = scoreCandidates(policy, state, r.contexts[i]!, clock);
    const result = stepController(
      r.controllers[i]!,
      {
        candidates: scored.map((c) => ({
          provider: c.provider,
          eligible: c.passedGates,
          score: c.score,
          sampleCount: c.sampleCount,
          ...controllerEvidence(c),
          failedGates: c.failedGates,
        })),
      },
      r.controllerConfig,
      now,
    );
    r.controllers[i] = result.state;
    r.states[i] = { ...state, shares: result.shares };
    for (const e of result.events) r.events.push(e);
  }
}

/** One decide() on the request's pre-drawn uniform; a half-open pick takes a probe slot. */
function routeRequest(r: TReplayRouter, now: number, region: number, u: number): number {
  r.clock.set(Math.max(r.clock.now(), now));
  if (now >= r.breakerViewsUntil) refreshBreakerViews(r, now);
  if (now >= r.quotaViewsUntil) refreshQuotaViews(r, now);
  r.draw = u;
  r.decisions++;
  const record = decide(r.contexts[region]!, r.states[region]!, r.policy, r.clock, r.random);
  if (record.selected === null) return -1;
  const p = r.index.get(record.selected)!;
  const k = r.breakerKeys[p]![region]!;
  if (r.breakerViews[k]?.state === "half_open") {
    r.breakerStates.set(k, r.breaker.step(r.breakerStates.get(k)!, { type: "probe_started" }, now));
    refreshBreakerViews(r, now);
  }
  return p;
}

/** Counts a call's outcome into telemetry, its breaker (correlated across regions) and its quota. */
function observeOutcome(r: TReplayRouter, now: number, region: number, provider: number, result: TCallResult): void {
  const b = deltaFor(r, provider, region, now);
  recordProviderCall(b, { at: now, latencyMs: result.latencyMs, ok: result.ok });
  recordBusinessOutcome(b, result.completed ? { at: now, completed: true } : { at: now, completed: false, failureStage: "provider_call" });
  const k = r.breakerKeys[provider]![region]!;
  const before = r.breakerStates.get(k)!;
  const after = r.breaker.step(before, result.ok ? { type: "success" } : { type: "failure", detail: result.kind }, now);
  r.breakerStates.set(k, after);
  let changed = after.state !== before.state || after.probeSuccesses !== before.probeSuccesses;
  if (after.state === "open" && before.state !== "open") recordIncident(b, now);
  if (r.correlate) r.failureRuns[provider] = extendFailureRun(r.failureRuns[provider]!, region, result.ok);
  if (r.correlate && (changed || !result.ok) && correlateProvider(r, now, provider, k, before)) changed = true;
  if (changed) refreshBreakerViews(r, now);
  if (result.kind === "throttled") {
    r.quotaStates[provider] = observeThrottle(r.quotaStates[provider]!, now, null);
    refreshQuotaViews(r, now);
  }
}

/**
 * Correlates the provider's regional breakers after the one at `k` stepped from `before`;
 * returns whether any other breaker changed.
 */
function correlateProvider(r: TReplayRouter, now: number, provider: number, k: string, before: TCircuitBreakerState): boolean {
  const keys = r.breakerKeys[provider]!;
  const group = keys.map((key) => (key === k ? before : r.breakerStates.get(key)!));
  const stepped = keys.map((key) => r.breakerStates.get(key)!);
  const released = releaseHeldBreakers(group, stepped, now, r.correlation);
  const next = correlateRegionalBreakers(released, now, r.breaker, r.correlation, r.failureRuns[provider]);
  let changed = false;
  keys.forEach((key, i) => {
    const s = next[i]!;
    if (s === stepped[i]) return;
    if (s.state === "open" && stepped[i]!.state !== "open") recordIncident(deltaFor(r, provider, i, now), now);
    r.breakerStates.set(key, s);
    changed = true;
  });
  return changed;
}
