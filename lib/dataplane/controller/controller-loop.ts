import type pg from "pg";
import {
  createClock,
  createControllerState,
  restoreControllerState,
  scoreCandidates,
  stepController,
  type TControllerConfig,
  type TControllerEvent,
  type TControllerState,
  type TFactorList,
  type TShares,
} from "../../../router-core/index";
import type { RoutingState } from "../routing-state";
import type { LeaderElector } from "./leader";

/** Instances reload traffic_share when this fires (payload: the operation keys that moved). */
export const SHARES_CHANNEL = "switchyard_shares";

const SAMPLE_RETENTION_DAYS = 14;
const BUCKET_RETENTION_HOURS = 48;
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
};

type TTickResult = {
  operation: string;
  region: string;
  shares: TShares;
  state: TControllerState;
  events: TControllerEvent[];
  policyVersion: string;
};

/** The controller config of one (operation, region): the policy's providers that serve the region, primary first. */
export function controllerConfig(policy: TFactorList, catalogue: readonly { key: string; regions: readonly string[] }[], region: string): TControllerConfig | null {
  const serves = new Map(catalogue.map((p) => [p.key, p.regions.includes("*") || p.regions.includes(region)]));
  const listed = policy.providers.length > 0 ? policy.providers : catalogue.map((p) => p.key);
  const priority = listed.filter((p) => serves.get(p) === true);
  if (priority.length === 0) return null;
  return {
    priority,
    hysteresis_score_margin: policy.hysteresis_score_margin,
    safety: policy.safety,
    min_sample_size: policy.min_sample_size,
  };
}

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
  const tickMs = opts.tickMs ?? 5_000;
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

  const keyOf = (operation: string, region: string) => `${operation}\u0000${region}`;

  async function loadStates(c: pg.Client): Promise<Map<string, TControllerState>> {
    const { rows } = await c.query<{ operation_key: string; region: string; state: unknown }>(
      "select operation_key, region, state from controller_state",
    );
    const out = new Map<string, TControllerState>();
    for (const r of rows) {
      try {
        out.set(keyOf(r.operation_key, r.region), restoreControllerState(r.state));
      } catch (err) {
        log(`controller state for ${r.operation_key}/${r.region} ignored: ${(err as Error).message}`);
      }
    }
    return out;
  }

  function compute(at: number, known: Map<string, TControllerState>): TTickResult[] {
    const results: TTickResult[] = [];
    const clock = createClock(() => at);
    for (const operation of state.operations()) {
      const active = state.policyFor(operation);
      if (!active) continue;
      for (const region of state.knownRegions(operation)) {
        const routerState = state.snapshotFor(operation, region);
        const config = controllerConfig(active.policy, state.providers(), region);
        if (!routerState || !config) continue;
        const key = keyOf(operation, region);
        try {
          let prev = known.get(key) ?? createControllerState(operation, region, config, at);
          // After a gap (no leader, restart) move at most one tick's worth, not the whole gap's budget at once.
          if (at - prev.lastTickAt > 2 * tickMs) prev = { ...prev, lastTickAt: at - tickMs };
          const priority = new Set(config.priority);
          const candidates = scoreCandidates(active.policy, { ...routerState, shares: prev.shares }, { region }, clock)
            .filter((c) => priority.has(c.provider))
            .map((c) => ({
              provider: c.provider,
              eligible: c.eligible,
              score: c.score,
              sampleCount: c.sampleCount,
              failedGates: c.failedGates,
              metrics: {
                ...(c.metrics ?? {}),
                stale: c.stale,
                contributions: c.contributions,
              },
            }));
          const step = stepController(prev, { candidates }, config, at);
          results.push({ operation, region, shares: step.shares, state: step.state, events: step.events, policyVersion: active.version });
        } catch (err) {
          log(`controller ${operation}/${region}: ${(err as Error).message}`);
        }
      }
    }
    return results;
  }

  async function persist(c: pg.Client, at: number, results: TTickResult[]): Promise<void> {
    const shareRows = results.flatMap((r) =>
      Object.entries(r.shares).map(([provider, share]) => ({ o: r.operation, r: r.region, p: provider, s: share, v: r.policyVersion })),
    );
    const samples = results.map((r) => ({ o: r.operation, r: r.region, shares: r.shares }));
    const events = results.flatMap((r) =>
      r.events.map((e) => ({
        at: e.at,
        o: r.operation,
        r: r.region,
        type: e.type,
        provider: e.provider,
        lf: e.leader.from,
        lt: e.leader.to,
        sf: e.shares.from,
        st: e.shares.to,
        capped: e.capped,
        detail: e.detail,
        evidence: e.evidence,
        v: r.policyVersion,
      })),
    );
    const controllerRows = results.map((r) => ({ o: r.operation, r: r.region, state: r.state }));
    await c.query("begin");
    try {
      await c.query(
        `insert into traffic_share (operation_key, region, provider_key, share, policy_version, updated_at)
         select x.o, x.r, x.p, x.s, x.v, to_timestamp($2 / 1000.0) from jsonb_to_recordset($1::jsonb) as x(o text, r text, p text, s float8, v text)
         on conflict (operation_key, region, provider_key) do update
           set share = excluded.share, policy_version = excluded.policy_version, updated_at = excluded.updated_at`,
        [JSON.stringify(shareRows), at],
      );
      // Providers dropped from an (operation, region) no longer hold a share there.
      await c.query(
        `delete from traffic_share t where exists (select 1 from jsonb_to_recordset($1::jsonb) as x(o text, r text) where x.o = t.operation_key and x.r = t.region)
           and t.updated_at < to_timestamp($2 / 1000.0)`,
        [JSON.stringify(samples.map((s) => ({ o: s.o, r: s.r }))), at],
      );
      await c.query(
        `insert into traffic_share_sample (operation_key, region, at, shares)
         select x.o, x.r, to_timestamp($2 / 1000.0), x.shares from jsonb_to_recordset($1::jsonb) as x(o text, r text, shares jsonb)`,
        [JSON.stringify(samples), at],
      );
      if (events.length > 0) {
        await c.query(
          `insert into shift_event (at, operation_key, region, type, provider_key, leader_from, leader_to, shares_from, shares_to, capped, detail, evidence, policy_version)
           select to_timestamp(x.at / 1000.0), x.o, x.r, x.type, x.provider, x.lf, x.lt, x.sf, x.st, x.capped, x.detail, x.evidence, x.v
           from jsonb_to_recordset($1::jsonb) as x(at bigint, o text, r text, type text, provider text, lf text, lt text, sf jsonb, st jsonb,
             capped boolean, detail text, evidence jsonb, v text)`,
          [JSON.stringify(events)],
        );
      }
      await c.query(
        `insert into controller_state (operation_key, region, state, instance_id, updated_at)
         select x.o, x.r, x.state, $2, to_timestamp($3 / 1000.0) from jsonb_to_recordset($1::jsonb) as x(o text, r text, state jsonb)
         on conflict (operation_key, region) do update set state = excluded.state, instance_id = excluded.instance_id, updated_at = excluded.updated_at`,
        [JSON.stringify(controllerRows), opts.instanceId, at],
      );
      if (at - lastPruneAt >= PRUNE_EVERY_MS) {
        await c.query(`delete from traffic_share_sample where at < now() - interval '${SAMPLE_RETENTION_DAYS} days'`);
        await c.query(`delete from metric_bucket where bucket_start < now() - interval '${BUCKET_RETENTION_HOURS} hours'`);
      }
      await c.query("select pg_notify($1, $2)", [SHARES_CHANNEL, JSON.stringify([...new Set(results.map((r) => r.operation))])]);
      await c.query("commit");
    } catch (err) {
      await c.query("rollback").catch(() => {});
      throw err;
    }
    if (at - lastPruneAt >= PRUNE_EVERY_MS) lastPruneAt = at;
  }

  async function tickOnce(): Promise<void> {
    if (!elector.isLeader) {
      states = null;
      return;
    }
    try {
      await elector.withSession(async (c) => {
        states ??= await loadStates(c);
        const at = now();
        const results = compute(at, states);
        await persist(c, at, results);
        for (const r of results) {
          states.set(keyOf(r.operation, r.region), r.state);
          state.setShares(r.operation, r.region, r.shares);
        }
        lastTickAt = at;
        lastError = null;
        ticks++;
      });
      // Routing already ignores expired overrides; ending them makes the end visible and audited.
      await opts.endExpiredOverrides?.().catch((err: unknown) => log(`ending expired overrides failed: ${(err as Error).message}`));
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
