import { ROUTING_DEFAULTS, type TControllerState } from "../../../router-core/index";
import type { RoutingState } from "../routing-state";
import { computeShares, controllerKey } from "./compute-shares";
import { loadControllerStates, persistTick } from "./controller-store";
import type { LeaderElector } from "./leader";

const PRUNE_EVERY_MS = 60_000;

export type TControllerLoopOptions = {
  elector: LeaderElector;
  state: RoutingState;
  instanceId: string;
  tickMs?: number;
  now?: () => number;
  log?: (line: string) => void;
  /** Ends overrides past their expiry, with their audit entries (governance); the leader calls it each tick. */
  endExpiredOverrides?: () => Promise<unknown>;
  /** Records incidents from the facts this tick wrote (lib/incidents), after the tick's own transaction commits. */
  trackIncidents?: () => Promise<unknown>;
};

/**
 * The traffic-share controller loop. Every instance runs the timer; only the leader (advisory
 * lock) acts: per (operation, region) it scores candidates with router-core's scoreCandidates
 * (the same gates and indices decide() logs), steps router-core's controller, and writes the
 * shares, a sample for the chart, the shift events and the serialised controller state in one
 * transaction on its lock session, then NOTIFYs SHARES_CHANNEL. On election it reloads the
 * stored controller states, so a new leader continues where the old one stopped. It also ends
 * expired overrides through governance's function, so each end carries an audit entry.
 */
export function createControllerLoop(opts: TControllerLoopOptions) {
  // The replay evaluates this cadence (router-core ROUTING_DEFAULTS); CONTROLLER_TICK_MS overrides it.
  const tickMs = opts.tickMs ?? ROUTING_DEFAULTS.tickSeconds * 1000;
  const now = opts.now ?? Date.now;
  const log = opts.log ?? (() => {});
  const { elector, state } = opts;
  let states: Map<string, TControllerState> | null = null;
  let lastTickAt: number | null = null;
  let lastError: string | null = null;
  let lastPruneAt = 0;
  let timer: NodeJS.Timeout | null = null;
  let running: Promise<void> | null = null;
  let ticks = 0;

  async function tickOnce(): Promise<void> {
    if (!elector.isLeader) {
      states = null;
      return;
    }
    try {
      await elector.withSession(async (c) => {
        states ??= await loadControllerStates(c, log);
        const at = now();
        const results = computeShares(state, at, tickMs, states, log);
        const prune = at - lastPruneAt >= PRUNE_EVERY_MS;
        await persistTick(c, at, results, opts.instanceId, prune);
        if (prune) lastPruneAt = at;
        for (const r of results) {
          states.set(controllerKey(r.operation, r.region), r.state);
          state.setShares(r.operation, r.region, r.shares);
        }
        lastTickAt = at;
        lastError = null;
        ticks++;
      });
      // Routing already ignores expired overrides; ending them makes the end visible and audited.
      await opts.endExpiredOverrides?.().catch((err: unknown) => log(`ending expired overrides failed: ${(err as Error).message}`));
      // Its own transaction: it needs the notifications' Prisma transaction, and a failure must not
      // roll the tick back. Its cursor keeps whatever it did not record for the next tick.
      await opts.trackIncidents?.().catch((err: unknown) => log(`incident tracking failed: ${(err as Error).message}`));
    } catch (err) {
      lastError = (err as Error).message;
      // Reload from the table on the next tick: what was committed is the truth.
      states = null;
      log(`controller tick failed: ${lastError}`);
    }
  }

  function schedule(): void {
    timer = setTimeout(() => {
      void loop.tick().finally(() => {
        if (timer) schedule();
      });
    }, tickMs);
    timer.unref();
  }

  const loop = {
    /** One tick now (tests, and right after election); concurrent callers share it. */
    tick(): Promise<void> {
      running ??= tickOnce().finally(() => (running = null));
      return running;
    },
    start(): void {
      schedule();
    },
    async stop(): Promise<void> {
      if (timer) clearTimeout(timer);
      timer = null;
      await running;
    },
    /** Called when leadership is lost: the next leader reloads state from the table. */
    reset(): void {
      states = null;
    },
    get isLeader(): boolean {
      return elector.isLeader;
    },
    get lastTickAt(): number | null {
      return lastTickAt;
    },
    get lastError(): string | null {
      return lastError;
    },
    get ticks(): number {
      return ticks;
    },
    tickMs,
  };
  return loop;
}

export type ControllerLoop = ReturnType<typeof createControllerLoop>;
