import {
  createBucket,
  createClock,
  createControllerState,
  createSeededRandom,
  decide,
  recordBusinessOutcome,
  recordIncident,
  recordProviderCall,
  controllerEvidence,
  scoreCandidates,
  stepController,
  type TBreakerView,
  type TControllerEvent,
  type TControllerState,
  type TDecisionRecord,
  type TFailureStage,
  type TMetricBucket,
  type TMetricSnapshot,
  type TShares,
} from "../../router-core/index";
import { controllerConfig } from "../../lib/dataplane/controller/compute-shares";
import { decisionIdAt } from "../../lib/dataplane/decision-id";
import { decisionRowOf } from "../../lib/dataplane/decision-log/rows";
import type { RoutingState } from "../../lib/dataplane/routing-state";
import { METRIC_BUCKET_SECONDS } from "../../lib/dataplane/telemetry/metric-sync";
import type { TBodyParts, TCompactDecision, TDecisionTemplate } from "./decision-insert";
import { breakerAt, diurnal, episodes, health, MINUTE_MS, SCOPE_WEIGHTS, snapshot, type TEpisode } from "./world";

/**
 * The week the scale seed writes, simulated forward in time with the product's own code: the
 * controller (router-core stepController over scoreCandidates, as the leader's loop runs it) every
 * controller tick, and decide() for the decision records, against a RoutingState loaded from the
 * seeded catalogue and policies. The world (world.ts) supplies provider health, breaker states
 * and incidents. Rows that would differ only in id, time and request id share one decide() call
 * per slot (a few seconds of one scope), so 10 million decisions need far fewer decide() calls;
 * each row's columns are read from its record, so columns and record always agree.
 */

export type TScaleOptions = {
  decisions: number;
  days: number;
  /** End of the simulated window (epoch ms); decisions fall in [end - days, end). */
  end: number;
  seed: number;
  /** How often a share sample is written: the leader's tick (CONTROLLER_TICK_MS default). */
  sampleMs?: number;
  /**
   * How often the simulated controller steps. Its moves are capped per minute, not per tick, so
   * stepping every 30 s instead of every 5 s moves shares the same way at a sixth of the cost;
   * the samples in between repeat the last step's shares.
   */
  stepMs?: number;
  /** Metric buckets are kept for this long before `end` (the controller loop prunes older ones). */
  bucketRetentionMs?: number;
  instanceId?: string;
};

export type TCallOutcomeRow = {
  outcomeId: string;
  decisionId: string;
  operation: string;
  region: string;
  provider: string;
  ok: boolean;
  errorClass: string | null;
  httpStatus: number;
  latencyMs: number;
  retryCount: number;
  reportedAt: number;
};

export type TBusinessOutcomeRow = {
  outcomeId: string;
  decisionId: string;
  operation: string;
  region: string;
  provider: string | null;
  completed: boolean;
  failureStage: TFailureStage | null;
  withinSla: boolean;
  reportedAt: number;
};

export type TShareSampleRow = { operation: string; region: string; at: number; shares: TShares };
export type TShiftEventRow = { operation: string; region: string; policyVersion: string; event: TControllerEvent };
export type TBreakerEventRow = { provider: string; region: string; from: string; to: string; reason: string; detail: string; at: number };

/** One epoch of simulated time: everything that happened in it, in time order. */
export type TEpochBatch = {
  start: number;
  end: number;
  /** The decide() records this epoch's rows were made from. */
  templates: TDecisionTemplate[];
  decisions: TCompactDecision[];
  calls: TCallOutcomeRow[];
  business: TBusinessOutcomeRow[];
  samples: TShareSampleRow[];
  events: TShiftEventRow[];
};

export type TFinalState = {
  shares: { operation: string; region: string; provider: string; share: number; policyVersion: string }[];
  controllerStates: { operation: string; region: string; state: TControllerState }[];
  buckets: TMetricBucket[];
  breakerEvents: TBreakerEventRow[];
  episodes: TEpisode[];
};

/** instance_id of the seeded rows: benchmarks find the seed's window by it (decide runs add rows of their own). */
export const SEED_INSTANCE_ID = "scale-seed";

const EPOCH_MS = 5 * MINUTE_MS;
const SLOTS_PER_EPOCH = 6;
/** decide() calls per slot and scope at most; the rows of a slot pick among them. */
const RECORDS_PER_SLOT = 8;
/** Share of decisions whose caller never reports an outcome (before the reporting lag near `end`). */
const NEVER_REPORTED = 0.045;
const BUSINESS_LAG_MS = 90_000;
const SLA_MS = 2_000;

type TScope = { operation: string; region: string; key: string; weight: number };

type TTemplate = { record: TDecisionRecord; row: TDecisionTemplate };

const ID = "@@scale-id@@";
const RQ = "@@scale-request@@";
const AT_SENTINEL = 8_888_888_888_888;

/**
 * The decide response body (the logged record) as the data plane builds it, split around the
 * values each row fills in, and the row's columns read from the record as the decide handler does.
 */
function template(key: number, record: TDecisionRecord, stateAgeMs: number, instanceId: string): TTemplate {
  const body = JSON.stringify({ decisionId: ID, ...record, id: ID, at: AT_SENTINEL, requestId: RQ, degraded: false, stateAgeMs });
  // The time sentinel only as the value of "at": a float in the record (a share of 8/9) can hold its digits.
  const parts = body.split(/@@scale-(?:id|request)@@|(?<="at":)8888888888888(?=[,}])/);
  if (parts.length !== 5) throw new Error(`decision record template has ${parts.length - 1} placeholders, expected 4`);
  return {
    record,
    row: {
      key,
      parts: parts as unknown as TBodyParts,
      // The row's columns exactly as the decide handler derives them (the per-row ones are filled in per decision).
      fields: decisionRowOf(record, { id: ID, degraded: false, body: "", durability: "sync", instanceId }),
    },
  };
}

/** Everything the simulation's steps share: the options, the seeded randomness, the clocks and the state it carries forward. */
type TSim = {
  state: RoutingState;
  opts: TScaleOptions;
  clock: { set(t: number): void };
  start: number;
  epochs: number;
  eps: TEpisode[];
  random: ReturnType<typeof createSeededRandom>;
  rand: () => number;
  bucketFrom: number;
  sampleMs: number;
  stepMs: number;
  instanceId: string;
  scopes: TScope[];
  cellCounts: number[];
  controllers: Map<string, TControllerState>;
  lastVersion: Map<string, string>;
  buckets: Map<string, TMetricBucket>;
  clockAt: { t: number };
  routerClock: ReturnType<typeof createClock>;
  seq: { sequence: number; request: number; template: number };
};

const pick = <T>(sim: TSim, xs: readonly T[]): T => xs[Math.min(xs.length - 1, Math.floor(sim.rand() * xs.length))]!;

/** The (operation, region) scopes with an active policy, a controller configuration and a traffic weight. */
function activeScopes(state: RoutingState): TScope[] {
  const scopes: TScope[] = [];
  for (const operation of state.operations()) {
    for (const region of state.knownRegions(operation)) {
      const weight = SCOPE_WEIGHTS[`${operation}|${region}`];
      if (weight !== undefined && state.policyFor(operation) && controllerConfig(state.policyFor(operation)!.policy, state.providers(), region)) {
        scopes.push({ operation, region, key: `${operation}|${region}`, weight });
      }
    }
  }
  if (scopes.length === 0) throw new Error("no (operation, region) with an active policy to simulate: seed the catalogue first");
  return scopes;
}

/** Decisions per (epoch, scope) cell, exactly `decisions` in all: cumulative rounding over cells weighted by traffic over the day. */
function cellCountsOf(decisions: number, start: number, epochs: number, scopes: readonly TScope[]): number[] {
  const totalWeight = scopes.reduce((s, x) => s + x.weight, 0);
  const cellWeights: number[] = [];
  for (let e = 0; e < epochs; e++) {
    const w = diurnal(start + e * EPOCH_MS + EPOCH_MS / 2);
    for (const s of scopes) cellWeights.push((w * s.weight) / totalWeight);
  }
  const weightSum = cellWeights.reduce((a, b) => a + b, 0);
  const cellCounts: number[] = [];
  let acc = 0;
  let assigned = 0;
  for (const w of cellWeights) {
    acc += w;
    const target = Math.round((decisions * acc) / weightSum);
    cellCounts.push(target - assigned);
    assigned = target;
  }
  return cellCounts;
}

function bucketFor(sim: TSim, provider: string, operation: string, region: string, at: number): TMetricBucket | null {
  if (at < sim.bucketFrom || at >= sim.opts.end) return null;
  const width = METRIC_BUCKET_SECONDS * 1000;
  const s = Math.floor(at / width) * width;
  const key = `${provider}|${operation}|${region}|${s}`;
  let b = sim.buckets.get(key);
  if (!b) {
    b = createBucket(provider, operation, region, at, width);
    sim.buckets.set(key, b);
  }
  return b;
}

/** Per-minute inputs of a scope: metrics from the world (sample counts from the traffic it gets) and breakers. */
function refreshScope(sim: TSim, s: TScope, t: number, perMinute: number): void {
  const { state, eps } = sim;
  const active = state.policyFor(s.operation)!;
  const shares = sim.controllers.get(s.key)?.shares ?? {};
  const metrics: Record<string, TMetricSnapshot> = {};
  const breakers: Record<string, TBreakerView> = {};
  const windowMinutes = active.policy.metric_window_minutes;
  for (const p of state.providers()) {
    if (!p.regions.includes(s.region) && !p.regions.includes("*")) continue;
    metrics[p.key] = snapshot({
      provider: p.key,
      operation: s.operation,
      region: s.region,
      t,
      callsPerWindow: perMinute * (shares[p.key] ?? 0) * windowMinutes,
      windowMinutes,
      minSampleSize: active.policy.min_sample_size,
      eps,
    });
    const b = breakerAt(p.key, s.region, t, eps);
    if (b) breakers[`${p.key}|${s.region}`] = b;
  }
  state.setMetrics(s.operation, s.region, metrics);
  state.setBreakers(s.operation, s.region, breakers);
}

/** One controller step of a scope, as the leader's loop runs it. */
function step(sim: TSim, s: TScope, at: number, out: TEpochBatch): void {
  const { state } = sim;
  const active = state.policyFor(s.operation)!;
  const config = controllerConfig(active.policy, state.providers(), s.region)!;
  const routerState = state.snapshotFor(s.operation, s.region)!;
  let prev = sim.controllers.get(s.key) ?? createControllerState(s.operation, s.region, config, at - sim.stepMs);
  sim.lastVersion.set(s.key, active.version);
  const priority = new Set(config.priority);
  const candidates = scoreCandidates(active.policy, { ...routerState, shares: prev.shares }, { region: s.region }, sim.routerClock)
    .filter((c) => priority.has(c.provider))
    .map((c) => ({
      provider: c.provider,
      eligible: c.eligible,
      score: c.score,
      sampleCount: c.sampleCount,
      ...controllerEvidence(c),
      failedGates: c.failedGates,
      metrics: { ...(c.metrics ?? {}), stale: c.stale, contributions: c.contributions },
    }));
  const result = stepController(prev, { candidates }, config, at);
  prev = result.state;
  sim.controllers.set(s.key, prev);
  state.setShares(s.operation, s.region, result.shares);
  for (const event of result.events) out.events.push({ operation: s.operation, region: s.region, policyVersion: active.version, event });
}

/** A real decision at the current simulated time (the routing state's and the router's clocks). */
function decideAt(sim: TSim, s: TScope): TDecisionRecord {
  const active = sim.state.policyFor(s.operation)!;
  const routerState = sim.state.snapshotFor(s.operation, s.region)!;
  return decide(
    { operation: s.operation, region: s.region, requestId: "", decisionId: "", sequence: sim.seq.sequence++ },
    routerState,
    active.policy,
    sim.routerClock,
    sim.random,
    active.shadow ? { shadow: active.shadow } : undefined,
  );
}

/** The provider call a caller reports for a decision, drawn from the world's health of the selected provider. */
function providerCallOutcome(sim: TSim, row: TCompactDecision, record: TDecisionRecord, provider: string, out: TEpochBatch) {
  const { rand } = sim;
  const at = row.at;
  const h = health(provider, record.region, at, sim.eps);
  const errorRate = Math.min(1, (1 - h.completion) * 0.7);
  const ok = rand() >= errorRate;
  // Log-normal latency whose 95th percentile is the world's p95 (median = p95 / 2.2).
  const z = Math.sqrt(-2 * Math.log(1 - rand())) * Math.cos(2 * Math.PI * rand());
  const latencyMs = Math.round(((h.p95Ms / 2.2) * Math.exp(0.48 * z) + Number.EPSILON) * 10) / 10;
  const errorClass = ok ? null : pick(sim, ["timeout", "http_5xx", "http_5xx", "throttled", "network"] as const);
  const callAt = at + Math.round(latencyMs);
  out.calls.push({
    outcomeId: decisionIdAt(callAt),
    decisionId: row.id,
    operation: record.operation,
    region: record.region,
    provider,
    ok,
    errorClass,
    httpStatus: ok ? 200 : errorClass === "throttled" ? 429 : errorClass === "timeout" ? 504 : 503,
    latencyMs: errorClass === "timeout" ? 10_000 : latencyMs,
    retryCount: ok ? (rand() < 0.03 ? 1 : 0) : rand() < 0.5 ? 1 : 2,
    reportedAt: callAt,
  });
  return { ok, errorRate, completion: h.completion, latencyMs, callAt };
}

/** The outcomes a caller reports for one decision: the provider call, then the business outcome. */
function outcomes(sim: TSim, row: TCompactDecision, record: TDecisionRecord, out: TEpochBatch): void {
  const { rand } = sim;
  const at = row.at;
  // Outcomes arrive over the next minutes: decisions just before `end` are mostly still pending.
  const lagged = at + BUSINESS_LAG_MS * rand() * 2 >= sim.opts.end;
  if (lagged || rand() < NEVER_REPORTED) return;
  const provider = record.selected;
  if (provider === null) {
    out.business.push({
      outcomeId: decisionIdAt(at + 1_000),
      decisionId: row.id,
      operation: record.operation,
      region: record.region,
      provider: null,
      completed: false,
      failureStage: "before_provider",
      withinSla: false,
      reportedAt: at + 1_000,
    });
    return;
  }
  const { ok, errorRate, completion, latencyMs, callAt } = providerCallOutcome(sim, row, record, provider, out);
  // A failed call fails the flow at the provider; after a good call the flow completes with
  // probability completion / (1 - errorRate), so completions come out at the world's rate.
  const completed = ok && rand() < completion / Math.max(1e-9, 1 - errorRate);
  let failureStage: TFailureStage | null = null;
  if (!ok) failureStage = "provider_call";
  else if (!completed) {
    const u = rand();
    failureStage = u < 0.5 ? "provider_call" : u < 0.8 ? "user_action" : u < 0.93 ? "downstream_app" : "unknown";
  }
  const businessAt = callAt + Math.round(2_000 + rand() * 60_000);
  out.business.push({
    outcomeId: decisionIdAt(businessAt),
    decisionId: row.id,
    operation: record.operation,
    region: record.region,
    provider,
    completed,
    failureStage,
    withinSla: completed && latencyMs <= SLA_MS,
    reportedAt: businessAt,
  });
  const b = bucketFor(sim, provider, record.operation, record.region, callAt);
  if (b) recordProviderCall(b, { at: callAt, latencyMs, ok });
  const bb = bucketFor(sim, provider, record.operation, record.region, businessAt);
  if (bb) recordBusinessOutcome(bb, { at: businessAt, completed, failureStage: failureStage ?? undefined });
}

/** When the next controller tick and the next minute refresh are due. */
type TTicks = { nextTick: number; nextRefresh: number };

/** Controller ticks and minute refreshes up to `until`, so decisions then see the state of that moment. */
function advanceTo(sim: TSim, ticks: TTicks, until: number, counts: readonly number[], epochMs: number, out: TEpochBatch): void {
  const { scopes } = sim;
  while (ticks.nextTick <= until || ticks.nextRefresh <= until) {
    if (ticks.nextRefresh <= ticks.nextTick) {
      sim.clockAt.t = ticks.nextRefresh;
      sim.clock.set(ticks.nextRefresh);
      for (let i = 0; i < scopes.length; i++) refreshScope(sim, scopes[i]!, ticks.nextRefresh, (counts[i]! / epochMs) * MINUTE_MS);
      ticks.nextRefresh += MINUTE_MS;
    } else {
      sim.clockAt.t = ticks.nextTick;
      sim.clock.set(ticks.nextTick);
      if ((ticks.nextTick - sim.start) % sim.stepMs === 0) for (const s of scopes) step(sim, s, ticks.nextTick, out);
      for (const s of scopes) out.samples.push({ operation: s.operation, region: s.region, at: ticks.nextTick, shares: sim.controllers.get(s.key)!.shares });
      ticks.nextTick += sim.sampleMs;
    }
  }
}

type TPending = { at: number; scope: TScope; tpl: TTemplate };

/** One slot's decisions: a few decide() calls per scope, and the slot's rows spread over it, each taking one of them. */
function slotDecisions(sim: TSim, slot: number, slotStart: number, slotEnd: number, counts: readonly number[], out: TEpochBatch, pending: TPending[]): void {
  const { scopes, rand } = sim;
  for (let i = 0; i < scopes.length; i++) {
    const s = scopes[i]!;
    const n = Math.round((counts[i]! * (slot + 1)) / SLOTS_PER_EPOCH) - Math.round((counts[i]! * slot) / SLOTS_PER_EPOCH);
    if (n === 0) continue;
    const templates: TTemplate[] = [];
    // stateAgeMs: time since this instance last refreshed its routing state (every few seconds).
    for (let k = 0; k < Math.min(n, RECORDS_PER_SLOT); k++) {
      const t = template(sim.seq.template++, decideAt(sim, s), Math.round(rand() * 5_000), sim.instanceId);
      templates.push(t);
      out.templates.push(t.row);
    }
    for (let j = 0; j < n; j++) pending.push({ at: Math.floor(slotStart + rand() * (slotEnd - slotStart)), scope: s, tpl: pick(sim, templates) });
  }
}

/** One epoch of simulated time, its rows in time order. */
function simulateEpoch(sim: TSim, e: number, ticks: TTicks): TEpochBatch {
  const eStart = sim.start + e * EPOCH_MS;
  const eEnd = Math.min(sim.opts.end, eStart + EPOCH_MS);
  const out: TEpochBatch = { start: eStart, end: eEnd, templates: [], decisions: [], calls: [], business: [], samples: [], events: [] };
  const slotMs = (eEnd - eStart) / SLOTS_PER_EPOCH;
  const counts = sim.scopes.map((_, i) => sim.cellCounts[e * sim.scopes.length + i]!);
  const pending: TPending[] = [];
  for (let slot = 0; slot < SLOTS_PER_EPOCH; slot++) {
    const slotStart = eStart + slot * slotMs;
    advanceTo(sim, ticks, slotStart, counts, eEnd - eStart, out);
    sim.clockAt.t = slotStart;
    sim.clock.set(slotStart);
    slotDecisions(sim, slot, slotStart, slotStart + slotMs, counts, out, pending);
  }
  pending.sort((a, b) => a.at - b.at);
  for (const p of pending) {
    const row: TCompactDecision = {
      id: decisionIdAt(p.at),
      at: p.at,
      requestId: `req-${p.scope.operation.toLowerCase()}-${(sim.seq.request++).toString(36)}`,
      template: p.tpl.row.key,
    };
    out.decisions.push(row);
    outcomes(sim, row, p.tpl.record, out);
  }
  return out;
}

function* runEpochs(sim: TSim): Generator<TEpochBatch, TFinalState> {
  const ticks: TTicks = { nextTick: sim.start, nextRefresh: sim.start };
  for (let e = 0; e < sim.epochs; e++) yield simulateEpoch(sim, e, ticks);
  return finish(sim, sim.opts.end);
}

/** Breaker history, final shares and controller states, metric buckets: as of `until` (the end, or where a stopped run got to). */
function finish(sim: TSim, until: number): TFinalState {
  const breakerEvents: TBreakerEventRow[] = [];
  for (const ep of sim.eps) {
    if (!ep.provider || !ep.breaker) continue;
    let from = "closed";
    for (const b of ep.breaker) {
      const at = ep.start + b.afterMs;
      if (at >= until) break;
      breakerEvents.push({ provider: ep.provider, region: ep.region, from, to: b.to, reason: b.reason, detail: b.detail, at });
      if (b.to === "open") {
        for (const op of sim.state.operations()) {
          const bucket = bucketFor(sim, ep.provider, op, ep.region, at);
          if (bucket) recordIncident(bucket, at);
        }
      }
      from = b.to;
    }
  }
  const shares: TFinalState["shares"] = [];
  const controllerStates: TFinalState["controllerStates"] = [];
  for (const s of sim.scopes) {
    const c = sim.controllers.get(s.key);
    if (!c) continue;
    controllerStates.push({ operation: s.operation, region: s.region, state: c });
    for (const [provider, share] of Object.entries(c.shares))
      shares.push({ operation: s.operation, region: s.region, provider, share, policyVersion: sim.lastVersion.get(s.key)! });
  }
  return { shares, controllerStates, buckets: [...sim.buckets.values()], breakerEvents, episodes: sim.eps };
}

export function createScaleSimulation(state: RoutingState, opts: TScaleOptions, clock: { set(t: number): void }) {
  if (!Number.isInteger(opts.decisions) || opts.decisions < 1) throw new RangeError(`decisions must be a positive integer, got ${opts.decisions}`);
  if (!(opts.days > 0 && opts.days <= 30)) throw new RangeError(`days must be in (0, 30], got ${opts.days}`);
  const sampleMs = opts.sampleMs ?? 5_000;
  const stepMs = opts.stepMs ?? 30_000;
  if (stepMs % sampleMs !== 0) throw new RangeError(`stepMs must be a multiple of sampleMs, got ${stepMs} and ${sampleMs}`);
  const start = opts.end - Math.round(opts.days * 86_400_000);
  const epochs = Math.ceil((opts.end - start) / EPOCH_MS);
  const eps = episodes(start, opts.days);
  const random = createSeededRandom(opts.seed);
  const scopes = activeScopes(state);
  const clockAt = { t: start };
  const sim: TSim = {
    state,
    opts,
    clock,
    start,
    epochs,
    eps,
    random,
    rand: () => random.next(),
    bucketFrom: opts.end - (opts.bucketRetentionMs ?? 48 * 3_600_000),
    sampleMs,
    stepMs,
    instanceId: opts.instanceId ?? SEED_INSTANCE_ID,
    scopes,
    cellCounts: cellCountsOf(opts.decisions, start, epochs, scopes),
    controllers: new Map(),
    lastVersion: new Map(),
    buckets: new Map(),
    clockAt,
    routerClock: createClock(() => clockAt.t),
    seq: { sequence: 0, request: 0, template: 0 },
  };
  return { start, end: opts.end, epochs, scopes: scopes.map((s) => s.key), run: () => runEpochs(sim), finish: (until: number) => finish(sim, until) };
}
