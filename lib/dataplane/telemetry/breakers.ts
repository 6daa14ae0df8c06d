import type pg from "pg";
import {
  breakerKey,
  breakerView,
  correlateRegionalBreakers,
  createCircuitBreaker,
  extendFailureRun,
  NO_FAILURE_RUN,
  releaseHeldBreakers,
  resolveBreakerCorrelation,
  type TBreakerCorrelationConfig,
  type TBreakerConfig,
  type TBreakerView,
  type TCircuitBreaker,
  type TBreakerEvent,
  type TCircuitBreakerState,
  type TBreakerTransition,
  type TProviderFailureRun,
  withProbeSlots,
} from "../../../router-core/index";
import type { RoutingState } from "../routing-state";

export type TBreakerTransitionRow = TBreakerTransition & { provider: string; region: string };

export type TBreakerBankOptions = {
  state: RoutingState;
  instanceId: string;
  now?: () => number;
  /** A breaker opened: counted as an incident in the provider's metrics. */
  onOpen?: (t: TBreakerTransitionRow & { operation: string }) => void;
  /**
   * Correlated regional breakers (router-core/control/breaker-correlation.ts), the same rule the
   * replay evaluates: defaults from router-core; `{ min_regions: 0 }` turns it off.
   */
  correlation?: Partial<TBreakerCorrelationConfig>;
  /** Cluster-wide state (breaker-sync.ts); without it the breakers are this instance's alone. */
  shared?: TBreakerSharing;
};

/** What the shared breaker state needs to hear from the bank; every hook must return at once. */
export type TBreakerSharing = {
  /** A breaker made transitions of its own (not merged ones): publish its state. */
  onTransition(entry: TBreakerEntry): void;
  /** A half-open breaker took a probe slot: take the next one from the cluster's budget. */
  onProbeStarted(entry: TBreakerEntry): void;
  /** A half-open breaker counted a probe success: add it to the cluster's count. */
  onProbeSuccess(entry: TBreakerEntry): void;
  /** Probe slots a new opening starts with on this instance: 0 while slots come from the cluster, null for the local budget. */
  openingProbeSlots(): number | null;
};

/** Transitions kept for a later attempt while the database is down; a flapping provider cannot grow it further. */
const MAX_PENDING_TRANSITIONS = 1_000;

/** Transitions waiting to be written to breaker_event; on a failed write they stay for the next one. */
function createTransitionQueue(instanceId: string) {
  let pending: TBreakerTransitionRow[] = [];
  let dropped = 0;
  return {
    push(rows: readonly TBreakerTransitionRow[]): void {
      pending.push(...rows);
      if (pending.length > MAX_PENDING_TRANSITIONS) {
        dropped += pending.length - MAX_PENDING_TRANSITIONS;
        pending = pending.slice(-MAX_PENDING_TRANSITIONS);
      }
    },
    async flush(pool: pg.Pool): Promise<void> {
      if (pending.length === 0) return;
      const batch = pending;
      pending = [];
      try {
        await pool.query(
          `insert into breaker_event (provider_key, region, from_state, to_state, reason, detail, instance_id, at)
           select x.provider, x.region, x."from", x."to", x.reason, x.detail, $2, to_timestamp(x.at / 1000.0)
           from jsonb_to_recordset($1::jsonb) as x(provider text, region text, "from" text, "to" text, reason text, detail text, at bigint)`,
          [JSON.stringify(batch), instanceId],
        );
      } catch (err) {
        pending = [...batch, ...pending];
        throw err;
      }
    },
    get dropped(): number {
      return dropped;
    },
  };
}

/** One breaker machine per distinct circuit_breaker config, built on first use. */
function createMachineCache(): (config: Partial<TBreakerConfig> | undefined) => TCircuitBreaker {
  const machines = new Map<string, TCircuitBreaker>();
  return (config) => {
    const k = JSON.stringify(config ?? {});
    let m = machines.get(k);
    if (!m) {
      m = createCircuitBreaker(config);
      machines.set(k, m);
    }
    return m;
  };
}

/** Whether a breaker's view changed in anything decide reads. */
function viewChanged(before: TBreakerView | undefined, after: TBreakerView): boolean {
  return (
    before?.state !== after.state ||
    before.probeAvailable !== after.probeAvailable ||
    before.nextAttemptAt !== after.nextAttemptAt ||
    before.openedAt !== after.openedAt
  );
}

type TEntry = { provider: string; region: string; state: TCircuitBreakerState; operation: string };
export type TBreakerEntry = Readonly<TEntry>;

/** The bank's breakers by key and by provider; `ensure` returns one, created closed as of `since` when missing. */
function createEntries(state: RoutingState, machine: ReturnType<typeof createMachineCache>) {
  const states = new Map<string, TEntry>();
  /** Each provider's regional breakers, for the correlation. */
  const byProvider = new Map<string, TEntry[]>();
  function ensure(operation: string, provider: string, region: string, since: number): TEntry {
    const key = breakerKey(provider, region);
    let entry = states.get(key);
    if (!entry) {
      entry = { provider, region, operation, state: machine(state.policyFor(operation)?.policy.circuit_breaker).initial(since) };
      states.set(key, entry);
      byProvider.set(provider, [...(byProvider.get(provider) ?? []), entry]);
    }
    entry.operation = operation;
    return entry;
  }
  return { states, byProvider, ensure };
}

/** The breakers' views in the routing state: `publish` rebuilds them and pushes them only when one changed (or when forced). */
function createViews(state: RoutingState, states: ReadonlyMap<string, TEntry>, now: () => number) {
  let views: Record<string, TBreakerView> = {};
  let count = 0;
  /**
   * Whether any breaker's view at `at` differs from the published one. It runs on every provider
   * call's outcome, so field by field, not by serialising every view twice.
   */
  function changedAt(at: number): boolean {
    if (states.size !== count) return true;
    for (const [k, s] of states) if (viewChanged(views[k], breakerView(s.state, at))) return true;
    return false;
  }
  return {
    publish(force = false): void {
      const at = now();
      if (!force && !changedAt(at)) return;
      const next: Record<string, TBreakerView> = {};
      for (const [k, s] of states) next[k] = breakerView(s.state, at);
      views = next;
      count = states.size;
      for (const operation of state.operations()) {
        for (const region of state.knownRegions(operation)) state.setBreakers(operation, region, views);
      }
    },
    current: () => views,
  };
}

/**
 * The correlation's next states for a provider's regional breakers after `changed` stepped from
 * `before`: other regions open early or are held while the failure looks provider-wide, and are
 * released when the lead closes. Null when the correlation does not apply.
 */
function correlatedStates(
  group: readonly TEntry[] | undefined,
  changed: TEntry,
  before: TCircuitBreakerState,
  m: TCircuitBreaker,
  run: TProviderFailureRun,
  correlation: TBreakerCorrelationConfig,
  at: number,
) {
  if (correlation.min_regions === 0 || !group || group.length < 2) return null;
  const previous = group.map((e) => (e === changed ? before : e.state));
  const stepped = group.map((e) => e.state);
  return { stepped, next: correlateRegionalBreakers(releaseHeldBreakers(previous, stepped, at, correlation), at, m, correlation, run) };
}

/**
 * Per-instance circuit breakers, one per (provider, region): a provider's health in a region is
 * shared by the operations that call it there. Thresholds come from the circuit_breaker section
 * of the policy of the operation whose outcome is being judged (the breaker state is plain data,
 * so stepping it with different configs is well defined). Views go to every (operation, region)
 * of the routing state; transitions are written to breaker_event for the console's history.
 */
export function createBreakerBank(opts: TBreakerBankOptions) {
  const now = opts.now ?? Date.now;
  const machine = createMachineCache();
  const { states, byProvider, ensure } = createEntries(opts.state, machine);
  /** Each provider's failures since its last success in any region (the correlation's provider-wide run). */
  const runs = new Map<string, TProviderFailureRun>();
  const correlation = resolveBreakerCorrelation(opts.correlation);
  const transitions = createTransitionQueue(opts.instanceId);
  const viewsOf = createViews(opts.state, states, now);
  const publish = viewsOf.publish;

  /** Steps one breaker and queues the transitions it made; returns how many. */
  function step(entry: TEntry, operation: string, event: TBreakerEvent, at: number): number {
    return adopt(entry, operation, machine(opts.state.policyFor(operation)?.policy.circuit_breaker).step(entry.state, event, at));
  }

  /** Takes a breaker's new state and queues the transitions it made; returns how many. */
  function adopt(entry: TEntry, operation: string, next: TCircuitBreakerState): number {
    const last = entry.state.history.at(-1);
    const slots = next.state === "open" && next.openedAt !== entry.state.openedAt ? opts.shared?.openingProbeSlots() : null;
    entry.state = slots === null || slots === undefined ? next : withProbeSlots(next, slots);
    // History is capped (its length stops growing), so new transitions are the ones after the previous last entry.
    const history = entry.state.history;
    const fresh = last ? history.slice(history.lastIndexOf(last) + 1) : history;
    const rows = fresh.map((t) => ({ ...t, provider: entry.provider, region: entry.region }));
    for (const row of rows) if (row.to === "open") opts.onOpen?.({ ...row, operation });
    transitions.push(rows);
    if (fresh.length > 0) opts.shared?.onTransition(entry);
    return fresh.length;
  }

  /** After one of a provider's regional breakers changed (or counted a failure): its correlated regions; returns the transitions made. */
  function correlate(changed: TEntry, before: TCircuitBreakerState, operation: string, at: number): number {
    const group = byProvider.get(changed.provider);
    const m = machine(opts.state.policyFor(operation)?.policy.circuit_breaker);
    const c = correlatedStates(group, changed, before, m, runs.get(changed.provider) ?? NO_FAILURE_RUN, correlation, at);
    if (!c || !group) return 0;
    let transitions = 0;
    group.forEach((e, i) => {
      if (c.next[i] === c.stepped[i]) return;
      // A held breaker's later reopening time makes no transition, but its view changed: count it so views are rebuilt.
      transitions += Math.max(1, adopt(e, operation, c.next[i]!));
    });
    return transitions;
  }

  return {
    /**
     * One provider call. `failed` must already mean provider-attributable; `startedAt` lets the
     * breaker ignore stragglers from before its current state.
     */
    record(operation: string, provider: string, region: string, failed: boolean, detail: string, startedAt: number): void {
      const at = now();
      // A new breaker starts as of this call's start, or it would discard the call as a straggler from before it existed.
      const entry = ensure(operation, provider, region, Math.min(at, startedAt));
      const before = entry.state;
      let transitions = step(entry, operation, failed ? { type: "failure", startedAt, detail } : { type: "success", startedAt }, at);
      if (!failed && before.state !== "closed" && entry.state.state === "half_open" && entry.state.probeSuccesses > before.probeSuccesses) {
        opts.shared?.onProbeSuccess(entry);
      }
      const run = runs.get(provider) ?? NO_FAILURE_RUN;
      if (failed || run.failures > 0) runs.set(provider, extendFailureRun(run, byProvider.get(provider)!.indexOf(entry), !failed));
      if (transitions > 0 || failed) transitions += correlate(entry, before, operation, at);
      publish(transitions > 0);
    },
    /**
     * A decision was routed to the provider. Only a half-open breaker (or an open one whose time
     * is up) cares: the decision is a probe and takes a slot, so probes stay within half_open_probes.
     */
    probeStarted(operation: string, provider: string, region: string): void {
      const key = breakerKey(provider, region);
      const entry = states.get(key);
      if (!entry || entry.state.state === "closed") return;
      const at = now();
      const started = entry.state.probesStarted;
      step(entry, operation, { type: "probe_started" }, at);
      if (entry.state.probesStarted > started) opts.shared?.onProbeStarted(entry);
      // This runs per decision: rebuild the views only when this breaker's view changed.
      if (viewChanged(viewsOf.current()[key], breakerView(entry.state, at))) publish(true);
    },
    /** Time-driven edges (open → half_open) show up in views without waiting for an outcome. */
    tick(): void {
      publish();
    },
    publish,
    /**
     * Replaces a breaker's state with one the cluster agreed on (breaker-sync.ts). No transitions
     * are queued: the instance that made them wrote them. Creates the breaker when this instance
     * has not called the provider yet.
     */
    replace(
      provider: string,
      region: string,
      change: (state: TCircuitBreakerState, m: TCircuitBreaker) => TCircuitBreakerState,
      /** The change is this instance's own decision (a close on the cluster's probe count): record and publish its transitions. */
      own = false,
    ): void {
      const operation = states.get(breakerKey(provider, region))?.operation ?? opts.state.operations()[0];
      if (operation === undefined) return;
      // A breaker this instance has not used yet starts before any remote state, so the remote one wins.
      const entry = ensure(operation, provider, region, 0);
      const next = change(entry.state, machine(opts.state.policyFor(entry.operation)?.policy.circuit_breaker));
      if (next === entry.state) return;
      if (own) adopt(entry, entry.operation, next);
      else entry.state = next;
      publish(true);
    },
    /** The breaker configuration a breaker is stepped with (its last operation's policy). */
    configFor: (entry: TBreakerEntry): Readonly<TBreakerConfig> => machine(opts.state.policyFor(entry.operation)?.policy.circuit_breaker).config,
    entries: (): TBreakerEntry[] => [...states.values()],
    views: (): Record<string, TBreakerView> => viewsOf.current(),
    states: () => [...states.values()].map((s) => ({ provider: s.provider, region: s.region, state: s.state.state, openedAt: s.state.openedAt })),
    /** Writes pending transitions; on failure they stay for the next call. */
    flush: (pool: pg.Pool): Promise<void> => transitions.flush(pool),
    get droppedTransitions(): number {
      return transitions.dropped;
    },
  };
}

export type BreakerBank = ReturnType<typeof createBreakerBank>;
