import type { TDecisionReadStore } from "../decision-log/store";
import { authenticateRequest, type TAuthenticator, type TRoute } from "../../edge";
import { createPool } from "../pool";
import { createControllerLoop, type ControllerLoop } from "../controller/controller-loop";
import { createLeaderElector } from "../controller/leader";
import { createMetricsHandler, type TDecisionLogLatency, type TQuotaUsage } from "../metrics-endpoint";
import { createPropagation, createShareLoader } from "../propagation";
import type { RoutingState } from "../routing-state";
import { observeDecisions } from "../metrics/counters";
import { createBreakerSync } from "./breaker-sync";
import { createBreakerBank } from "./breakers";
import { startMaintenance } from "./maintenance";
import { createMetricSync } from "./metric-sync";
import { createOutcomeIngestion } from "./outcome-ingestion";
import { createOutcomesHandler } from "./outcomes-route";

export type TTelemetryOptions = {
  databaseUrl: string;
  state: RoutingState;
  instanceId: string;
  /** Reloads policies, providers and overrides into the state (the data plane's loadConfig). */
  reloadConfig: () => Promise<void>;
  /** Directory for the outcome spool; null: outcomes fail with 503 while Postgres is unreachable. */
  spoolDir: string | null;
  spoolMaxBytes?: number;
  /** ClickHouse mode: outcomes' decisions are looked up there (the data plane's `decisionReads`). */
  decisionReads?: TDecisionReadStore | null;
  decisionLogQueueDepth?: () => number;
  decisionLogLatency?: () => TDecisionLogLatency;
  decisionLogSpoolBytes?: () => number;
  quotas?: () => TQuotaUsage[];
  /** Execute mode's queue for /metrics; started after telemetry, so read late. */
  executeQueue?: () => { depth: number; durable: boolean } | null;
  log?: (line: string) => void;
  /** Environment-style knobs; tests shorten them. */
  metricsRefreshMs?: number | null;
  controllerTickMs?: number;
  /** Governance's endExpiredOverrides, bound to a client: the leader calls it each tick. */
  endExpiredOverrides?: () => Promise<unknown>;
  /** The incidents tracker, bound to a client: the leader calls it after each tick. */
  trackIncidents?: () => Promise<unknown>;
  leaderRetryMs?: number;
  pollMs?: number;
  /** Safety-net pull period of the shared breaker state (LISTEN/NOTIFY carries it otherwise). */
  breakerPollMs?: number;
  /** Who may report outcomes; default: the process's authenticator (authenticateRequest), which the data plane installs. */
  authenticate?: TAuthenticator;
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
    breakerPollMs: ms("BREAKER_POLL_MS"),
  };
}

/**
 * The leader elector and the controller loop. They refer to each other: the loop acts only while
 * elected, and a new leader ticks at once.
 */
function createLeadership(opts: TTelemetryOptions, log: (line: string) => void) {
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
    state: opts.state,
    instanceId: opts.instanceId,
    tickMs: opts.controllerTickMs,
    log,
    endExpiredOverrides: opts.endExpiredOverrides,
    trackIncidents: opts.trackIncidents,
  });
  return { elector, controller };
}

type TTelemetryParts = {
  metrics: ReturnType<typeof createMetricSync>;
  breakers: ReturnType<typeof createBreakerBank>;
  breakerSync: ReturnType<typeof createBreakerSync>;
  ingestion: ReturnType<typeof createOutcomeIngestion>;
  leadership: ReturnType<typeof createLeadership>;
  shares: ReturnType<typeof createShareLoader>;
  propagation: ReturnType<typeof createPropagation>;
};

function telemetryRoutes(opts: TTelemetryOptions, parts: TTelemetryParts): TRoute[] {
  const { metrics, breakers, breakerSync, ingestion, leadership, shares, propagation } = parts;
  const { outcomes, spool } = ingestion;
  const { elector, controller } = leadership;
  return [
    { method: "POST", path: "/api/v1/outcomes", handler: createOutcomesHandler(outcomes, opts.authenticate ?? authenticateRequest) },
    {
      method: "GET",
      path: "/api/v1/metrics",
      handler: createMetricsHandler(
        {
          state: opts.state,
          decisionLogQueueDepth: opts.decisionLogQueueDepth,
          decisionLogLatency: opts.decisionLogLatency,
          decisionLogSpoolBytes: opts.decisionLogSpoolBytes,
          quotas: opts.quotas,
          outcomeQueueDepth: () => outcomes.queueDepth,
          outcomeSpoolBytes: () => spool?.stats().usedBytes ?? 0,
          breakers: breakers.states,
          breakersShared: () => breakerSync.status().shared,
          controller: () => ({ leader: elector.isLeader, lastTickAt: controller.lastTickAt, sharesWrittenAt: shares.writtenAt }),
          metricsRefreshedAt: () => metrics.lastRefreshAt,
          configNotices: () => propagation.notices,
          executeQueue: opts.executeQueue,
        },
        opts.authenticate ?? authenticateRequest,
      ),
    },
  ];
}

/** For /health: who runs the controller, how fresh the merged metrics are, whether notices arrive. */
function telemetryHealth(parts: TTelemetryParts, now: number) {
  const { metrics, breakerSync, ingestion, leadership, shares, propagation } = parts;
  const { elector, controller } = leadership;
  const breakerStatus = breakerSync.status();
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
    // shared false: Postgres is unreachable and this instance runs on its own breakers until it merges them back.
    breakers: { ...breakerStatus, lastSyncAt: undefined, lastSyncAgeMs: age(breakerStatus.lastSyncAt) },
    propagation: { listening: propagation.listening, lastNoticeAgeMs: age(propagation.lastNoticeAt) },
    outcomeSpool: ingestion.spool?.stats() ?? null,
  };
}

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
  const breakerSync = createBreakerSync({ pool, databaseUrl: opts.databaseUrl, instanceId: opts.instanceId, pollMs: opts.breakerPollMs, log });
  const breakers = createBreakerBank({
    state,
    instanceId: opts.instanceId,
    shared: breakerSync.sharing,
    onOpen: (t) => metrics.recordIncident({ provider: t.provider, operation: t.operation, region: t.region }, t.at),
  });
  breakerSync.attach(breakers);
  const stopObserving = observeDecisions((operation, region, provider) => breakers.probeStarted(operation, provider, region));
  const ingestion = createOutcomeIngestion({
    pool,
    state,
    metrics,
    breakers,
    spoolDir: opts.spoolDir,
    spoolMaxBytes: opts.spoolMaxBytes,
    decisionReads: opts.decisionReads,
  });
  const { outcomes, spool } = ingestion;
  const leadership = createLeadership(opts, log);
  const { elector, controller } = leadership;
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
  const parts: TTelemetryParts = { metrics, breakers, breakerSync, ingestion, leadership, shares, propagation };

  await shares.load().catch((err: unknown) => log(`initial shares load failed: ${(err as Error).message}`));
  await metrics.refresh();
  breakers.publish(true);
  metrics.start();
  elector.start();
  controller.start();
  propagation.start();
  breakerSync.start();
  const maintenance = startMaintenance({ pool, state, breakers, breakerSync, outcomes, spool, log });

  return {
    routes: telemetryRoutes(opts, parts),
    metrics,
    breakers,
    breakerSync,
    outcomes,
    controller,
    elector,
    propagation,
    health: (now: number = Date.now()) => telemetryHealth(parts, now),
    async close(): Promise<void> {
      maintenance.stop();
      stopObserving();
      await propagation.stop();
      await breakerSync.stop();
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
