import type { TGateOutcome } from "../gates/gate";
import { precomputeInto, type TWeightedSpec } from "../scoring/contributions";
import type { TProviderInfo, TRouterState } from "../types";
import type { TRegionPlan } from "./compile";
import type { TCandidateLookups } from "./evaluation";

/** The empty tag or key list, one shared object (kept evaluations compare the killed list by identity). */
export const NO_TAGS: readonly string[] = [];

/**
 * Whether any breaker is keyed per region. Building `provider|region` keys costs a string
 * concatenation and flattening per candidate, so it is skipped when no such key exists; breaker
 * maps are replaced, not mutated, by the controller, so caching per object is safe.
 */
const regionalCache = new WeakMap<object, boolean>();
function hasRegionalBreakers(breakers: Readonly<Record<string, unknown>>): boolean {
  let v = regionalCache.get(breakers);
  if (v === undefined) {
    v = Object.keys(breakers).some((k) => k.includes("|"));
    regionalCache.set(breakers, v);
  }
  return v;
}

/**
 * The candidate's gate outcomes as an array records share: the one the previous decision on this
 * state got when every outcome is the same object (constant outcomes), otherwise a new one, kept
 * for the next decision. Not frozen (freezing costs more than building it); nothing writes to it.
 */
export function sharedOutcomes(lookups: TCandidateLookups, i: number, scratch: readonly TGateOutcome[], n: number): readonly TGateOutcome[] {
  const prev = lookups.outcomes[i];
  if (prev !== undefined && prev.length === n) {
    let same = true;
    for (let g = 0; g < n; g++) {
      if (prev[g] !== scratch[g]) {
        same = false;
        break;
      }
    }
    if (same) return prev;
  }
  const next = scratch.slice(0, n);
  lookups.outcomes[i] = next;
  return next;
}

/**
 * The state's metrics, breaker, quota and share of each candidate, with its raw metrics and
 * own-metric indices (scoring/contributions.ts), index-aligned with `candidates`.
 */
export function buildLookups(candidates: readonly TProviderInfo[], state: TRouterState, region: string, specs: readonly TWeightedSpec[]): TCandidateLookups {
  const regional = hasRegionalBreakers(state.breakers);
  const n = candidates.length;
  const out: TCandidateLookups = {
    metricsOf: state.metrics,
    breakersOf: state.breakers,
    quotasOf: state.quotas,
    sharesOf: state.shares,
    metrics: new Array(n),
    breakers: new Array(n),
    quotas: new Array(n),
    shares: new Array(n),
    raw: new Array(n * specs.length),
    index: new Float64Array(n * specs.length),
    outcomes: new Array(n),
    scored: new Array(n),
    evaluation: null,
    evaluationKilled: NO_TAGS,
    evaluationFrom: Infinity,
    evaluationUntil: -Infinity,
  };
  for (let i = 0; i < n; i++) {
    const key = candidates[i]!.key;
    out.metrics[i] = state.metrics[key];
    out.breakers[i] = (regional ? state.breakers[key + "|" + region] : undefined) ?? state.breakers[key];
    out.quotas[i] = state.quotas[key];
    out.shares[i] = state.shares?.[key] ?? null;
    precomputeInto(out.raw, out.index, i * specs.length, specs, out.metrics[i], candidates[i]!.costPerRequest);
  }
  return out;
}

/**
 * buildLookups for the plan's candidates, once per state rather than once per decision: keyed
 * loads with a provider key on these maps are megamorphic (a hash probe each, four per
 * candidate), and the maps change only when the data plane replaces them (every refresh
 * interval), so the arrays are rebuilt then and reused by every decision in between. Kept on the
 * plan; a plan alternately used with two states rebuilds.
 */
export function lookupsFor(plan: TRegionPlan, state: TRouterState, region: string, specs: readonly TWeightedSpec[]): TCandidateLookups {
  const cached = plan.lookups;
  if (
    cached !== null &&
    cached.metricsOf === state.metrics &&
    cached.breakersOf === state.breakers &&
    cached.quotasOf === state.quotas &&
    cached.sharesOf === state.shares
  ) {
    return cached;
  }
  plan.lookups = buildLookups(plan.candidates, state, region, specs);
  return plan.lookups;
}
