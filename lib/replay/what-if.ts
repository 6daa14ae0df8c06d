import { parseFactorList } from "../../router-core/policy/codec";
import type { TFactorList } from "../../router-core/policy/schema";
import { withCatalogRequirements, type TRegionRequirements } from "../../router-core/policy/catalog-requirements";
import {
  complianceBreaches,
  createFactorListPolicy,
  runReplay,
  trafficFromCounts,
  type ProviderModel,
  type TComplianceBreach,
  type TCondition,
  type TRouterWiring,
} from "../../router-core/replay";
import type { TProviderInfo } from "../../router-core/types";

/**
 * What-if replay: a draft factor list replayed over recorded traffic. The recorded per-minute
 * outcome rates of each provider and region drive the simulated providers, the recorded request
 * counts per minute and region are the traffic, and router-core's decide, controller, breakers
 * and metric store route it as the draft would have. Shares and success are projected next to
 * what actually happened.
 */

/** Recorded behaviour of one provider in one region and minute (from metric buckets). */
export type TRecordedCell = {
  calls: number;
  callFailures: number;
  completions: number;
  /** Business outcomes failed at the provider call stage. */
  providerFailures: number;
  p95Ms: number | null;
};

export type TRecordedTraffic = {
  operation: string;
  /** Start of minute 0, epoch ms. */
  startMs: number;
  providers: readonly string[];
  regions: readonly string[];
  /** Decisions per [minute][region]: the traffic to replay. */
  requests: readonly (readonly number[])[];
  /** Decisions per [minute][provider] that selected each provider (what happened). */
  selected: readonly (readonly number[])[];
  /** [minute][provider][region]; null where the provider had no traffic there that minute. */
  cells: readonly (readonly (readonly (TRecordedCell | null)[])[])[];
  costPerRequest?: Readonly<Record<string, number>>;
  /** The provider catalogue (regions, compliance tags) the region and compliance gates read. */
  catalog?: readonly Pick<TProviderInfo, "key" | "regions" | "complianceTags">[];
  /** The catalogue's per-region certification requirements of the operation, merged into every policy as the data plane does. */
  regionRequirements?: TRegionRequirements;
};

export type TWhatIfProviderSummary = { provider: string; actualShare: number; projectedShare: number };
export type TWhatIfMinute = {
  minute: number;
  at: number;
  requests: number;
  actual: Record<string, number>;
  projected: Record<string, number>;
  projectedSuccessRate: number;
};

export type TWhatIfReport = {
  operation: string;
  from: number;
  to: number;
  requests: number;
  /** Success as recorded: completions over decisions that reached a provider or failed before one. */
  actualSuccessRate: number | null;
  projectedSuccessRate: number;
  providers: TWhatIfProviderSummary[];
  minutes: TWhatIfMinute[];
  /** Provider-regions with no recorded calls in the whole range: their behaviour is unknown. */
  assumed: { provider: string; region: string; minutes: number }[];
  /**
   * With `assumed` providers, the projection credits them with typical healthy behaviour, so
   * success is given as the range they could produce: from failing every call to answering every
   * call. Null when every provider the replay used was observed.
   */
  unknown: { successRange: { low: number; high: number } } | null;
  /** How much of the asked range had recorded traffic: minutes with at least one decision, of the minutes asked. */
  coverage: { askedMinutes: number; recordedMinutes: number; firstAt: number | null; lastAt: number | null };
  /**
   * Replayed decisions that went to a provider the active policy's compliance rules refuse for the
   * region; null when no active policy was given to check against.
   */
  compliance: { activeVersion: string | null; breaches: TComplianceBreach[] } | null;
};

export type TWhatIfOptions = {
  seed?: number;
  wiring?: Partial<TRouterWiring>;
  /** The active policy, whose compliance rules the replayed decisions are checked against. */
  active?: { policy: TFactorList; version: string | null };
};

/** Used where a provider has no recorded traffic at all: typical healthy behaviour, flagged in `assumed`. */
const ASSUMED: TCondition = { errorP: 0.005, timeoutP: 0, completionFailP: 0, p95Ms: 400, quotaPerMinute: null, degraded: false };
/** The two ends of what an unobserved provider could do: fail every call, or answer every one. */
const FAILS_ALL: TCondition = { ...ASSUMED, errorP: 1 };
const ANSWERS_ALL: TCondition = { ...ASSUMED, errorP: 0 };

function conditionOf(cells: readonly TRecordedCell[]): TCondition | null {
  let calls = 0;
  let callFailures = 0;
  let completions = 0;
  let providerFailures = 0;
  let p95Weighted = 0;
  let p95Calls = 0;
  for (const c of cells) {
    calls += c.calls;
    callFailures += c.callFailures;
    completions += c.completions;
    providerFailures += c.providerFailures;
    if (c.p95Ms !== null) {
      p95Weighted += c.p95Ms * c.calls;
      p95Calls += c.calls;
    }
  }
  if (calls === 0) return null;
  const answered = completions + providerFailures;
  return {
    errorP: callFailures / calls,
    timeoutP: 0,
    // Call failures already fail the request; the rest of the provider-stage failures happened behind an answer.
    completionFailP: answered > 0 ? Math.max(0, providerFailures - callFailures) / Math.max(1, answered - callFailures) : 0,
    p95Ms: p95Calls > 0 ? p95Weighted / p95Calls : ASSUMED.p95Ms,
    quotaPerMinute: null,
    degraded: false,
  };
}

/**
 * The provider model: a minute's own recorded rates where the provider served that region then;
 * otherwise the nearest recorded minutes of the same provider and region (±5), then the whole
 * range, then assumed healthy. A provider the recorded policy never used is exactly what a draft
 * may want to use, so the fallback is stated in the report rather than hidden.
 */
export function recordedModel(rec: TRecordedTraffic, unobserved: TCondition = ASSUMED): { model: ProviderModel; assumed: TWhatIfReport["assumed"] } {
  const M = rec.requests.length;
  const P = rec.providers.length;
  const R = rec.regions.length;
  const table: TCondition[] = new Array<TCondition>(M * P * R);
  const assumed: TWhatIfReport["assumed"] = [];
  for (let p = 0; p < P; p++) {
    for (let r = 0; r < R; r++) {
      const own = (m: number) => rec.cells[m]?.[p]?.[r] ?? null;
      const whole = conditionOf(Array.from({ length: M }, (_, m) => own(m)).filter((c): c is TRecordedCell => c !== null));
      let assumedMinutes = 0;
      for (let m = 0; m < M; m++) {
        let c = own(m) === null ? null : conditionOf([own(m)!]);
        for (let d = 1; c === null && d <= 5; d++) {
          const near = [own(m - d), own(m + d)].filter((x): x is TRecordedCell => x !== null);
          c = conditionOf(near);
        }
        c ??= whole;
        if (c === null) assumedMinutes++;
        table[(m * P + p) * R + r] = c ?? unobserved;
      }
      if (assumedMinutes > 0) assumed.push({ provider: rec.providers[p]!, region: rec.regions[r]!, minutes: assumedMinutes });
    }
  }
  return {
    model: {
      providers: rec.providers,
      regions: rec.regions,
      condition: (provider, region, minute) => table[(minute * P + provider) * R + region]!,
    },
    assumed,
  };
}

function parseDraft(draft: TFactorList | string): TFactorList {
  if (typeof draft !== "string") return draft;
  const parsed = parseFactorList(draft);
  if (!parsed.ok) throw new RangeError(`draft factor list is invalid: ${parsed.errors.map((e) => `${e.path}: ${e.message}`).join("; ")}`);
  return parsed.value;
}

/** Minutes of the range with at least one recorded decision, and the first and last of them. */
export function coverageOf(rec: TRecordedTraffic): TWhatIfReport["coverage"] {
  let recordedMinutes = 0;
  let first: number | null = null;
  let last: number | null = null;
  rec.requests.forEach((row, m) => {
    if (row.reduce((a, b) => a + b, 0) === 0) return;
    recordedMinutes++;
    first ??= m;
    last = m;
  });
  const at = (m: number | null) => (m === null ? null : rec.startMs + m * 60_000);
  return { askedMinutes: rec.requests.length, recordedMinutes, firstAt: at(first), lastAt: at(last) };
}

export function runWhatIf(rec: TRecordedTraffic, draft: TFactorList | string, opts: TWhatIfOptions = {}): TWhatIfReport {
  const requirements = rec.regionRequirements ?? {};
  // The data plane routes with the catalogue's regional requirements merged in; so does the replay.
  const policy = withCatalogRequirements(parseDraft(draft), requirements);
  if (policy.operation !== rec.operation) {
    throw new RangeError(`draft factor list is for ${policy.operation}, the recorded traffic for ${rec.operation}`);
  }
  const { model, assumed } = recordedModel(rec);
  const costs = rec.costPerRequest ?? {};
  const cost = Math.min(...rec.providers.map((p) => costs[p] ?? 0));
  const wiring = rec.catalog ? { catalog: rec.catalog, ...opts.wiring } : opts.wiring;
  const replay = (m: ProviderModel) =>
    runReplay(
      { model: m, traffic: trafficFromCounts(rec.regions, rec.requests, opts.seed ?? 1), degradedFrom: 0, affectedRegions: rec.regions.map((_, i) => i) },
      createFactorListPolicy(policy, rec.providers, rec.regions, cost, wiring),
    );
  const result = replay(model);
  // Unobserved providers must not be credited: replay again with them failing every call and answering every call.
  const unknown =
    assumed.length === 0
      ? null
      : {
          successRange: rangeOf(
            replay(recordedModel(rec, FAILS_ALL).model).metrics.successRate,
            replay(recordedModel(rec, ANSWERS_ALL).model).metrics.successRate,
          ),
        };
  const active = opts.active;
  const compliance = active
    ? {
        activeVersion: active.version,
        breaches: complianceBreaches(
          withCatalogRequirements(active.policy, requirements),
          rec.catalog ?? [],
          rec.regions,
          rec.providers,
          result.servedByRegion,
        ),
      }
    : null;
  return { ...summariseWhatIf(rec, result.trace, result.metrics.successRate), assumed, unknown, coverage: coverageOf(rec), compliance };
}

type TTrace = ReturnType<typeof runReplay>["trace"];

const rangeOf = (a: number, b: number) => ({ low: Math.min(a, b), high: Math.max(a, b) });

/** Shares and success, projected next to recorded, overall and per minute. */
function summariseWhatIf(
  rec: TRecordedTraffic,
  trace: TTrace,
  projectedSuccessRate: number,
): Omit<TWhatIfReport, "assumed" | "unknown" | "coverage" | "compliance"> {
  let total = 0;
  const actualByProvider = new Array<number>(rec.providers.length).fill(0);
  for (const row of rec.selected) row.forEach((n, p) => (actualByProvider[p]! += n));
  for (const row of rec.requests) for (const n of row) total += n;
  const actualSelected = actualByProvider.reduce((a, b) => a + b, 0);
  let completions = 0;
  for (const minute of rec.cells) for (const byProvider of minute) for (const c of byProvider) completions += c?.completions ?? 0;

  const projectedByProvider = rec.providers.map((_, p) => trace.reduce((s, m) => s + (m.providers[p]?.requests ?? 0), 0));
  const minutes: TWhatIfMinute[] = trace.map((m) => {
    const actual: Record<string, number> = {};
    const projected: Record<string, number> = {};
    const sel = rec.selected[m.minute] ?? [];
    const selTotal = sel.reduce((a, b) => a + b, 0);
    rec.providers.forEach((p, i) => {
      actual[p] = selTotal > 0 ? (sel[i] ?? 0) / selTotal : 0;
      projected[p] = m.requests > 0 ? (m.providers[i]?.requests ?? 0) / m.requests : 0;
    });
    return {
      minute: m.minute,
      at: rec.startMs + m.minute * 60_000,
      requests: m.requests,
      actual,
      projected,
      projectedSuccessRate: m.requests > 0 ? m.successes / m.requests : 0,
    };
  });
  return {
    operation: rec.operation,
    from: rec.startMs,
    to: rec.startMs + rec.requests.length * 60_000,
    requests: total,
    actualSuccessRate: total > 0 ? completions / total : null,
    projectedSuccessRate,
    providers: rec.providers.map((provider, p) => ({
      provider,
      actualShare: actualSelected > 0 ? actualByProvider[p]! / actualSelected : 0,
      projectedShare: total > 0 ? projectedByProvider[p]! / total : 0,
    })),
    minutes,
  };
}
