import path from "node:path";
import { createPool } from "../pool";
import { createControllerLoop, type ControllerLoop } from "../controller/controller-loop";
import { createLeaderElector } from "../controller/leader";
import { findDecisions } from "../decision-log/lookup";
import { createMetricsHandler } from "../metrics-endpoint";
import { createPropagation, createShareLoader } from "../propagation";
import type { TRoute } from "../router";
import type { RoutingState } from "../routing-state";
import { mayBeSpooled as mayBeSpooledDecision, readBacklog, type TBacklogRow } from "../decision-log/backlog";
import { createSpool } from "../spool";
import { createBreakerBank } from "./breakers";
import { observeDecisions } from "../metrics/counters";
import { createMetricSync } from "./metric-sync";
import { createOutcomeService, type TDecisionLookup, type TPendingOutcome } from "./outcomes";
import { createOutcomesHandler } from "./outcomes-route";
import type { TDecisionLogLatency } from "../metrics-endpoint";

export type TTelemetryOptions = {
  databaseUrl: string;
  state: RoutingState;
  instanceId: string;
  /** Reloads policies, providers and overrides into the state (the data plane's loadConfig). */
  reloadConfig: () => Promise<void>;
  /** Directory for the outcome spool; null: outcomes fail with 503 while Postgres is unreachable. */
  spoolDir: string | null;
  spoolMaxBytes?: number;
  decisionLogQueueDepth?: () => number;
  decisionLogLatency?: () => TDecisionLogLatency;
  log?: (line: string) => void;
  /** Environment-style knobs; tests shorten them. */
  metricsRefreshMs?: number | null;
  controllerTickMs?: number;
  /** Governance's endExpiredOverrides, bound to a client: the leader calls it each tick. */
  endExpiredOverrides?: () => Promise<unknown>;
  leaderRetryMs?: number;
  pollMs?: number;
};

/** Environment knobs (README "Configuration"). */
export function telemetryOptionsFromEnv(env: NodeJS.ProcessEnv = process.env) {
  const ms = (name: string): number | undefined => {
    const raw = env[name];
    if (raw === undefined || raw === "") return undefined;
    const n = Number(raw);
    if (!Number.isFinite(n) || n <= 0) throw new RangeError(`${name} must be a positive number of milliseconds, got ${raw}`);
    return n;
  };
  return {
    metricsRefreshMs: ms("METRICS_REFRESH_MS") ?? null,
    controllerTickMs: ms("CONTROLLER_TICK_MS"),
    leaderRetryMs: ms("CONTROLLER_LEADER_RETRY_MS"),
    pollMs: ms("CONFIG_POLL_MS"),
  };
}

const MAINTENANCE_MS = 1_000;
/** How long other instances' spool announcements are reused before they are read again (only unknown decisions read them). */
const BACKLOG_CACHE_MS = 100;

/**
 * The telemetry and control half of the data plane, per instance: outcome ingestion with its
 * group-commit writer and spool, rolling metrics merged through Postgres, circuit breakers, the
 * leader-elected controller and config/share propagation. Returns the routes it serves and a
 * health view; close() stops everything and flushes the last metric deltas.
 */
export async function startTelemetry(opts: TTelemetryOptions) {
  const log = opts.log ?? (() => {});
  const { state } = opts;
  const pool = createPool({ connectionString: opts.databaseUrl, max: 6, connectionTimeoutMillis: 2_000, idleTimeoutMillis: 30_000 });

  const metrics = createMetricSync({ pool, state, refreshMs: opts.metricsRefreshMs ?? null, log });
  const breakers = createBreakerBank({
    state,
    instanceId: opts.instanceId,
    onOpen: (t) => metrics.recordIncident({ provider: t.provider, operation: t.operation, region: t.region }, t.at),
  });
  observeDecisions((operation, region, provider) => breakers.probeStarted(operation, provider, region));
  const spool = opts.spoolDir
    ? createSpool<TPendingOutcome>({ dir: path.resolve(opts.spoolDir), name: "outcomes", maxBytes: opts.spoolMaxBytes ?? 256 * 1024 * 1024 })
    : null;
  const lookup: TDecisionLookup = async (ids) => {
    const found = await findDecisions(pool, ids);
    const out = new Map<string, { operation: string; region: string; selected: string | null }>();
    for (const id of ids) {
      const d = found.get(id.toLowerCase());
      if (d) out.set(id, { operation: d.operation, region: d.region, selected: d.selectedProvider });
    }
    return out;
  };
  // Other instances' spool announcements, read only for outcomes whose decision is unknown, and reused for BACKLOG_CACHE_MS.
  let backlog: { rows: TBacklogRow[]; at: number } | null = null;
  const mayBeSpooled = async (ids: string[]): Promise<ReadonlySet<string>> => {
    const t = Date.now();
    if (backlog === null || t - backlog.at >= BACKLOG_CACHE_MS) backlog = { rows: await readBacklog(pool), at: t };
    const outage = state.lastDbOutage;
    const rows = backlog.rows;
    return new Set(ids.filter((id) => mayBeSpooledDecision(id, rows, outage, t)));
  };
  const outcomes = createOutcomeService({ pool, state, lookup, metrics, breakers, spool, mayBeSpooled });

  // The elector and the loop refer to each other: the loop acts only while elected, and a new leader ticks at once.
  let controller: ControllerLoop | null = null;
  const elector = createLeaderElector({
    databaseUrl: opts.databaseUrl,
    retryMs: opts.leaderRetryMs,
    log,
    onElected: () => void controller?.tick(),
    onDemoted: () => controller?.reset(),
  });
  controller = createControllerLoop({
    elector,
    state,
    instanceId: opts.instanceId,
    tickMs: opts.controllerTickMs,
    log,
    endExpiredOverrides: opts.endExpiredOverrides,
  });

  const shares = createShareLoader(pool, state);
  const propagation = createPropagation({
    databaseUrl: opts.databaseUrl,
    reloadConfig: async () => {
      await opts.reloadConfig();
      // New operations or regions need their metric and breaker views too.
      metrics.publish();
      breakers.publish(true);
    },
    reloadShares: shares.load,
    pollMs: opts.pollMs,
    log,
  });

  let maintenance: NodeJS.Timeout | null = null;
  let maintaining = false;
  async function maintain(): Promise<void> {
    if (maintaining) return;
    maintaining = true;
    try {
      breakers.tick();
      await breakers.flush(pool).catch(() => {});
      // Replay only once the decision log's probe sees Postgres again; each failed attempt would start a new segment.
      if (spool?.hasPending() && state.dbAvailable) {
        let written = 0;
        await spool
          .replay(async (items) => {
            const r = await outcomes.replay(items);
            written += r.written;
            if (r.unknown > 0) log(`outcome spool: dropped ${r.unknown} outcomes whose decision is still unknown after the grace period`);
          }, 500)
          .catch(() => 0);
        if (written > 0) log(`outcome spool: replayed ${written} outcomes`);
      }
    } finally {
      maintaining = false;
    }
  }

  await shares.load().catch((err: unknown) => log(`initial shares load failed: ${(err as Error).message}`));
  await metrics.refresh();
  breakers.publish(true);
  metrics.start();
  elector.start();
  controller.start();
  propagation.start();
  maintenance = setInterval(() => void maintain(), MAINTENANCE_MS);
  maintenance.unref();

  const routes: TRoute[] = [
    { method: "POST", path: "/api/v1/outcomes", handler: createOutcomesHandler(outcomes) },
    {
      method: "GET",
      path: "/api/v1/metrics",
      handler: createMetricsHandler({
        state,
        decisionLogQueueDepth: opts.decisionLogQueueDepth,
        decisionLogLatency: opts.decisionLogLatency,
        outcomeQueueDepth: () => outcomes.queueDepth,
        outcomeSpoolBytes: () => spool?.stats().usedBytes ?? 0,
        breakers: breakers.states,
        controller: () => ({ leader: elector.isLeader, lastTickAt: controller.lastTickAt, sharesWrittenAt: shares.writtenAt }),
        metricsRefreshedAt: () => metrics.lastRefreshAt,
        configNotices: () => propagation.notices,
      }),
    },
  ];

  return {
    routes,
    metrics,
    breakers,
    outcomes,
    controller,
    elector,
    propagation,
    /** For /health: who runs the controller, how fresh the merged metrics are, whether notices arrive. */
    health(now: number = Date.now()) {
      const age = (at: number | null) => (at === null ? null : Math.max(0, now - at));
      return {
        controller: {
          leader: elector.isLeader,
          lastTickAgeMs: age(controller.lastTickAt),
          tickMs: controller.tickMs,
          lastError: controller.lastError,
          sharesWrittenAgeMs: age(shares.writtenAt),
        },
        metrics: {
          refreshAgeMs: age(metrics.lastRefreshAt),
          refreshMs: metrics.refreshMs,
          unflushedBuckets: metrics.unflushed,
          lastError: metrics.lastError,
        },
        propagation: { listening: propagation.listening, lastNoticeAgeMs: age(propagation.lastNoticeAt) },
        outcomeSpool: spool?.stats() ?? null,
      };
    },
    async close(): Promise<void> {
      if (maintenance) clearInterval(maintenance);
      observeDecisions(null);
      await propagation.stop();
      await controller.stop();
      await elector.stop();
      await outcomes.drain();
      await metrics.stop();
      await breakers.flush(pool).catch(() => {});
      await spool?.close();
      await pool.end().catch(() => {});
    },
  };
}

export type Telemetry = Awaited<ReturnType<typeof startTelemetry>>;
