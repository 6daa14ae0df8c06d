import { createClock, decide, type Clock, type Random, type TCandidateRecord, type TDecisionRecord, type TRouterState } from "../../router-core/index";
import {
  decisionIdAt,
  decisionRowOf,
  DecisionLogBusyError,
  type DecisionLog,
  type TWriteOutcome,
  type RoutingState,
  type TActivePolicy,
  countDecision,
  noteRouted,
  decisionBody,
} from "../dataplane";

/**
 * A request-level gate outcome the execute path adds: the model's context window, an adapter to
 * call the provider with, the budget guard's fallback limit, and a provider already called for
 * the same idempotency key.
 */
export type TRequestGate = {
  gate: "context_window_fits" | "adapter_configured" | "max_fallback_duration" | "not_called_for_key";
  passed: boolean;
  detail: string;
};

export type TLoggedDecision = {
  decisionId: string;
  /** The caller's principal id, logged with the decision and stored with its outcomes. */
  apiKeyId: string | null;
  record: TDecisionRecord;
  /**
   * Settles when the row is durable as the decision log's durability says (or rejects). The row
   * is deferred (DecisionLog.submit's deferMs) while the provider is called: call demand() before
   * waiting on it for an answer.
   */
  written: Promise<TWriteOutcome>;
  demand(): void;
  /**
   * The log refused the row at once (buffer full, shutting down). Known after the first await
   * following the decision, before any provider is called: a call must not run undecided.
   */
  refused(): DecisionLogBusyError | null;
};

export type TDecider = ReturnType<typeof createDecider>;

/**
 * How long an execute decision row waits for company at most. Nobody needs it durable before the
 * provider answered (the answer waits for it, the call does not), so it goes with the batch the
 * first finished call demands, together with the rows of every call still running.
 */
export const EXECUTE_DECISION_DEFER_MS = 20;

/**
 * The decision of an execute call: router-core's decide() on the same routing state and policy
 * as POST /api/v1/decide, logged through the same group-commit decision log, so the console,
 * GET /decisions/:id and outcome matching treat it like any other decision. Providers a
 * request-level gate excludes are left out of the candidates (router-core's `providers`
 * attribute) and appended to the record as ineligible candidates carrying that gate's outcome,
 * so the record still explains why they were not chosen.
 */
export function createDecider(deps: { state: RoutingState; log: DecisionLog; instanceId: string; now: () => number; random: Random }) {
  const clock: Clock = createClock(deps.now);
  let sequence = 0;

  return (
    input: { operation: string; region: string; requestId: string; attributes: Record<string, string> | undefined; apiKeyId: string | null },
    active: TActivePolicy,
    routerState: TRouterState,
    excluded: ReadonlyMap<string, TRequestGate[]>,
  ): TLoggedDecision => {
    const at = deps.now();
    const decisionId = decisionIdAt(at);
    let attributes = input.attributes;
    if (excluded.size > 0) {
      const allowed = routerState.providers.map((p) => p.key).filter((k) => !excluded.has(k));
      const callerList = attributes?.providers
        ?.split(",")
        .map((s) => s.trim())
        .filter((s) => s !== "");
      const keep = callerList ? allowed.filter((k) => callerList.includes(k)) : allowed;
      attributes = { ...attributes, providers: keep.join(",") };
    }
    const record = decide(
      { operation: input.operation, region: input.region, requestId: input.requestId, decisionId, sequence: sequence++, attributes },
      routerState,
      active.policy,
      clock,
      deps.random,
      active.shadow ? { shadow: active.shadow } : undefined,
    );
    if (excluded.size > 0) appendExcluded(record, active, excluded);
    noteRouted(record.operation, record.region, record.selected);
    const degraded = !deps.state.dbAvailable;
    const refreshedAt = deps.state.lastRefreshAt;
    const { text: body, stored } = decisionBody(decisionId, record, {
      mode: "execute",
      degraded,
      stateAgeMs: refreshedAt === null ? null : Math.max(0, at - refreshedAt),
    });
    const row = decisionRowOf(record, {
      id: decisionId,
      degraded,
      body,
      durability: deps.log.durability,
      instanceId: deps.instanceId,
      apiKeyId: input.apiKeyId,
    });
    const written = deps.log.submit(row, stored, EXECUTE_DECISION_DEFER_MS);
    let busy: DecisionLogBusyError | null = null;
    written.then(
      (o) => {
        if (o.status !== "existing") countDecision(record.operation, record.region, record.selected, record.reasonCode);
      },
      (err: unknown) => {
        if (err instanceof DecisionLogBusyError) busy = err;
      },
    );
    // A method rather than an arrow property: tsx names each arrow it can with a defineProperty call
    // per creation (lib/gateway/README.md, "Closures on the hot path").
    return {
      decisionId,
      apiKeyId: input.apiKeyId,
      record,
      written,
      demand: deps.log.demand,
      refused() {
        return busy;
      },
    };
  };
}

function appendExcluded(record: TDecisionRecord, active: TActivePolicy, excluded: ReadonlyMap<string, TRequestGate[]>): void {
  const order = active.policy.providers;
  // A new list: the decision's candidate list may be shared with other decisions (router-core).
  const candidates = [...record.candidates];
  for (const [provider, gates] of excluded) {
    const at = order.indexOf(provider);
    const c: TCandidateRecord = {
      provider,
      priority: at === -1 ? order.length + candidates.length : at,
      // The record's gate list is typed by the factor-list vocabulary; these are the execute path's request gates.
      gates: gates as unknown as TCandidateRecord["gates"],
      passedGates: false,
      guardrail: null,
      eligible: false,
      contributions: [],
      score: null,
      share: null,
      selectionProbability: 0,
      metricsAt: null,
      stale: false,
      sampleCount: 0,
      metricScope: "none",
    };
    candidates.push(c);
  }
  record.candidates = candidates;
}
