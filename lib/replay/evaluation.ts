import type { TFactorList } from "../../router-core/policy/schema";
import {
  DEFAULT_ROUTER_WIRING,
  PAPER_TABLE_14,
  POLICY_IDS,
  POLICY_LABELS,
  REPLAY_PROVIDERS,
  SCENARIOS,
  SCENARIO_IDS,
  SENSITIVITY_VARIANTS,
  latencyTradeoffNote,
  meetsTarget,
  runScenario,
  scenarioTraffic,
  sensitivityRows,
  staleTelemetryNote,
  type TPolicyId,
  type TResultCell,
  type TRunMetrics,
  type TRunResult,
  type TScenarioId,
  type TSensitivityRow,
  type TTraceMinute,
} from "../../router-core/replay";

/**
 * The console's evaluation (the paper's section 8 (docs/references.md), Tables 14 and 15): the same runs as `npm run
 * replay`, with a chosen factor list as the factor-list policy. Pure and synchronous: the
 * server runs it on a worker thread (evaluation-runner.ts), never on its request thread.
 */

/** Scenarios whose factor-list runs are varied for Table 15 (as `npm run replay`'s default). */
export const SENSITIVITY_SCENARIOS: readonly TScenarioId[] = ["latency"];

export type TEvaluationCell = {
  scenario: TScenarioId;
  scenarioLabel: string;
  policy: TPolicyId;
  policyLabel: string;
  metrics: TRunMetrics;
  /** The paper's Table 14 (docs/references.md) figures for this scenario and policy. */
  paper: { success: number; degradedMinutes: number };
  /** Factor-list rows only: whether the paper's factor-list target is met. */
  meetsTarget: boolean | null;
};

export type TEvaluationResult = {
  seed: number;
  /** How the chosen list's providers map onto the scenarios' A (primary), B and C. */
  providerMap: { from: string; to: string }[];
  /** What of the chosen list the synthetic scenarios cannot model, stated rather than hidden. */
  adaptations: string[];
  /** The scenarios' degradation windows (minutes) and affected regions, for the charts. */
  scenarios: { id: TScenarioId; label: string; degradedFrom: number; degradedTo: number; affectedRegions: string[] }[];
  cells: TEvaluationCell[];
  sensitivity: { scenarios: TScenarioId[]; rows: TSensitivityRow[] };
  notes: string[];
  runs: number;
  elapsedMs: number;
  /** Per-minute traces, keyed "scenario/policy". */
  traces: Record<string, TTraceMinute[]>;
};

export type TEvaluationProgress = { done: number; total: number; label: string };

export const traceKey = (scenario: TScenarioId, policy: TPolicyId) => `${scenario}/${policy}`;

/**
 * The scenarios simulate three providers A (primary), B and C, in EU, NA and APAC. A list from
 * the database names real providers: its priority order maps onto A, B, C (a list naming two
 * leaves C out of the candidates; one naming none routes over A, B, C in that order). Regional
 * provider lists are renamed the same way; compliance requirements are dropped because the
 * simulated providers carry no compliance tags (every candidate would fail the gate).
 */
export function adaptToScenarios(list: TFactorList): { factorList: TFactorList; providerMap: TEvaluationResult["providerMap"]; adaptations: string[] } {
  const adaptations: string[] = [];
  const named = list.providers.slice(0, REPLAY_PROVIDERS.length);
  if (list.providers.length > REPLAY_PROVIDERS.length) {
    adaptations.push(`the scenarios simulate ${REPLAY_PROVIDERS.length} providers: ${list.providers.slice(REPLAY_PROVIDERS.length).join(", ")} left out`);
  }
  const providerMap = named.map((from, i) => ({ from, to: REPLAY_PROVIDERS[i]! }));
  const rename = new Map(providerMap.map((m) => [m.from, m.to]));
  const regions: TFactorList["regions"] = {};
  for (const [region, rule] of Object.entries(list.regions)) {
    if (rule.required_compliance.length > 0)
      adaptations.push(`${region}: required compliance ${rule.required_compliance.join(", ")} not modelled (simulated providers carry no tags)`);
    regions[region] = {
      ...rule,
      required_compliance: [],
      ...(rule.providers ? { providers: rule.providers.flatMap((p) => (rename.has(p) ? [rename.get(p)!] : [])) } : {}),
    };
  }
  return { factorList: { ...list, providers: providerMap.map((m) => m.to), regions }, providerMap, adaptations };
}

type TJob = { scenario: TScenarioId; policy: TPolicyId; variant: number | null };

function jobsFor(): TJob[] {
  const jobs: TJob[] = [];
  for (const scenario of SCENARIO_IDS) for (const policy of POLICY_IDS) jobs.push({ scenario, policy, variant: null });
  // Variant 0 is the baseline: the factor-list run of the main grid.
  for (const scenario of SENSITIVITY_SCENARIOS) SENSITIVITY_VARIANTS.forEach((_, i) => i > 0 && jobs.push({ scenario, policy: "factor_list", variant: i }));
  return jobs;
}

export const EVALUATION_RUNS = jobsFor().length;

export function runEvaluation(list: TFactorList, seed: number, onProgress: (p: TEvaluationProgress) => void = () => {}): TEvaluationResult {
  const started = performance.now();
  const { factorList, providerMap, adaptations } = adaptToScenarios(list);
  const traffic = scenarioTraffic(seed);
  const jobs = jobsFor();
  const results = new Map<string, TRunResult>();
  const variantRuns: TRunResult[][] = SENSITIVITY_VARIANTS.map(() => []);
  jobs.forEach((job, i) => {
    const v = job.variant === null ? null : SENSITIVITY_VARIANTS[job.variant]!;
    onProgress({ done: i, total: jobs.length, label: v ? `${v.id} × ${job.scenario}` : `${SCENARIOS[job.scenario].label} × ${POLICY_LABELS[job.policy]}` });
    const result = runScenario({
      scenario: job.scenario,
      policy: job.policy,
      seed,
      traffic,
      factorList: v ? v.factorList(factorList) : factorList,
      wiring: v?.wiring,
    });
    if (job.variant === null) results.set(traceKey(job.scenario, job.policy), result);
    else variantRuns[job.variant]!.push(result);
  });
  for (const scenario of SENSITIVITY_SCENARIOS) variantRuns[0]!.push(results.get(traceKey(scenario, "factor_list"))!);
  onProgress({ done: jobs.length, total: jobs.length, label: "done" });

  const cells: TEvaluationCell[] = [];
  for (const scenario of SCENARIO_IDS) {
    for (const policy of POLICY_IDS) {
      const metrics = results.get(traceKey(scenario, policy))!.metrics;
      cells.push({
        scenario,
        scenarioLabel: SCENARIOS[scenario].label,
        policy,
        policyLabel: POLICY_LABELS[policy],
        metrics,
        paper: PAPER_TABLE_14[scenario][policy],
        meetsTarget: policy === "factor_list" ? meetsTarget(scenario, metrics) : null,
      });
    }
  }
  const rows = sensitivityRows(SENSITIVITY_VARIANTS, variantRuns);
  const reportCells: TResultCell[] = cells.map((c) => ({ scenario: c.scenario, scenarioLabel: c.scenarioLabel, policy: c.policy, metrics: c.metrics }));
  const notes = [
    latencyTradeoffNote(reportCells, rows),
    staleTelemetryNote(reportCells, {
      degradedFrom: SCENARIOS.stale.degradedFrom,
      delaySeconds: SCENARIOS.stale.telemetryDelaySeconds,
      bucketSeconds: DEFAULT_ROUTER_WIRING.bucketSeconds,
      maxShiftPerMinute: factorList.safety.max_traffic_shift_per_minute,
      probeShare: factorList.safety.primary_probe_share,
      providers: REPLAY_PROVIDERS.length,
    }),
  ].filter((n): n is string => n !== null);
  const traces: Record<string, TTraceMinute[]> = {};
  for (const [key, r] of results) traces[key] = r.trace;
  return {
    seed,
    providerMap,
    adaptations,
    scenarios: SCENARIO_IDS.map((id) => {
      const sc = SCENARIOS[id];
      return { id, label: sc.label, degradedFrom: sc.degradedFrom, degradedTo: sc.degradedTo, affectedRegions: [...sc.affectedRegions] };
    }),
    cells,
    sensitivity: { scenarios: [...SENSITIVITY_SCENARIOS], rows },
    notes,
    runs: jobs.length,
    elapsedMs: Math.round(performance.now() - started),
    traces,
  };
}
