import {
  controllerConfigFor,
  createClock,
  createControllerState,
  controllerEvidence,
  scoreCandidates,
  stepController,
  type TControllerConfig,
  type TControllerEvent,
  type TControllerState,
  type TFactorList,
  type TRouterState,
  type TShares,
} from "../../../router-core/index";
import type { TActivePolicy, RoutingState } from "../routing-state";

export const controllerKey = (operation: string, region: string) => `${operation}\u0000${region}`;

export type TTickResult = {
  operation: string;
  region: string;
  shares: TShares;
  state: TControllerState;
  events: TControllerEvent[];
  policyVersion: string;
};

/** The controller config of one (operation, region): the policy's providers that serve the region, primary first. */
export function controllerConfig(
  policy: TFactorList,
  catalogue: readonly { key: string; regions: readonly string[] }[],
  region: string,
): TControllerConfig | null {
  const serves = new Map(catalogue.map((p) => [p.key, p.regions.includes("*") || p.regions.includes(region)]));
  const listed = policy.providers.length > 0 ? policy.providers : catalogue.map((p) => p.key);
  const priority = listed.filter((p) => serves.get(p) === true);
  if (priority.length === 0) return null;
  return controllerConfigFor(policy, priority);
}

type TStepInput = {
  operation: string;
  region: string;
  active: TActivePolicy;
  routerState: TRouterState;
  config: TControllerConfig;
  at: number;
  tickMs: number;
};

/**
 * One (operation, region): scores the candidates with router-core's scoreCandidates (the same
 * gates and indices decide() logs) and steps router-core's controller from its previous state.
 */
function stepRegion(input: TStepInput, known: ReadonlyMap<string, TControllerState>): TTickResult {
  const { operation, region, active, routerState, config, at, tickMs } = input;
  let prev = known.get(controllerKey(operation, region)) ?? createControllerState(operation, region, config, at);
  // After a gap (no leader, restart) move at most one tick's worth, not the whole gap's budget at once.
  if (at - prev.lastTickAt > 2 * tickMs) prev = { ...prev, lastTickAt: at - tickMs };
  const priority = new Set(config.priority);
  const candidates = scoreCandidates(
    active.policy,
    { ...routerState, shares: prev.shares },
    { region },
    createClock(() => at),
  )
    .filter((c) => priority.has(c.provider))
    .map((c) => ({
      provider: c.provider,
      eligible: c.eligible,
      score: c.score,
      sampleCount: c.sampleCount,
      ...controllerEvidence(c),
      failedGates: c.failedGates,
      metrics: {
        ...(c.metrics ?? {}),
        stale: c.stale,
        contributions: c.contributions,
      },
    }));
  const step = stepController(prev, { candidates }, config, at);
  return { operation, region, shares: step.shares, state: step.state, events: step.events, policyVersion: active.version };
}

/** A tick's new shares and controller states for every (operation, region) with a policy and providers. */
export function computeShares(
  state: RoutingState,
  at: number,
  tickMs: number,
  known: ReadonlyMap<string, TControllerState>,
  log: (line: string) => void,
): TTickResult[] {
  const results: TTickResult[] = [];
  for (const operation of state.operations()) {
    const active = state.policyFor(operation);
    if (!active) continue;
    for (const region of state.knownRegions(operation)) {
      const routerState = state.snapshotFor(operation, region);
      const config = controllerConfig(active.policy, state.providers(), region);
      if (!routerState || !config) continue;
      try {
        results.push(stepRegion({ operation, region, active, routerState, config, at, tickMs }, known));
      } catch (err) {
        log(`controller ${operation}/${region}: ${(err as Error).message}`);
      }
    }
  }
  return results;
}
