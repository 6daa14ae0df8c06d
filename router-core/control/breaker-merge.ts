import type { TCircuitBreaker, TCircuitBreakerState } from "./circuit-breaker";

/**
 * How instances that share one breaker agree on it (the data plane's breaker_state row). Each
 * instance counts its own calls while closed; the latest transition anywhere wins, so a breaker
 * opened by one instance's failures is open everywhere, and one closed by probe successes is
 * closed everywhere. Half-open probe slots and successes are counted once for the cluster.
 */

/**
 * The state an instance keeps after seeing `remote` for a breaker it holds as `local`: the one
 * whose current state began later. On a tie the local state stays, so an echo of an instance's
 * own write changes nothing. Returns `local` itself when nothing changes. Probe slots are each
 * instance's own: a remote state keeps the local slots of the same opening, and an opening this
 * instance has not seen starts with none (withProbeSlots grants them).
 */
export function mergeBreakerState(local: TCircuitBreakerState, remote: TCircuitBreakerState): TCircuitBreakerState {
  if (remote.since <= local.since) return local;
  if (remote.state === "closed") return remote;
  const same = remote.openedAt === local.openedAt;
  return {
    ...remote,
    probeLimit: same ? local.probeLimit : 0,
    probesStarted: same ? local.probesStarted : 0,
    probeSuccesses: same ? local.probeSuccesses : 0,
    probeSlotsFreeAt: same ? local.probeSlotsFreeAt : null,
  };
}

/**
 * A breaker state whose half-open period may start `slots` probes on this instance. Shared
 * breakers start each opening with no slots and take them one at a time from the cluster's
 * budget, so the instances together stay within `half_open_probes`.
 */
export function withProbeSlots(state: TCircuitBreakerState, slots: number): TCircuitBreakerState {
  if (state.state === "closed" || !Number.isInteger(slots) || slots < 0) return state;
  return slots === state.probeLimit ? state : { ...state, probeLimit: slots };
}

/**
 * A half-open breaker after the cluster as a whole counted `successes` probe successes in this
 * half-open period: closed once they reach `half_open_successes_to_close`, even when no single
 * instance saw that many. Other states are returned as they are.
 */
export function withClusterProbeSuccesses(machine: TCircuitBreaker, state: TCircuitBreakerState, successes: number, now: number): TCircuitBreakerState {
  if (state.state !== "half_open" || successes <= state.probeSuccesses) return state;
  const counted = Math.min(successes, machine.config.half_open_successes_to_close) - 1;
  // One more success on top of the cluster's count runs the machine's own closing rule.
  return machine.step({ ...state, probeSuccesses: Math.max(state.probeSuccesses, counted) }, { type: "success" }, now);
}
