import { createPool } from "./pool";
import type { PrismaClient } from "../db";
import { dataPlaneAuthenticator, setAuthenticator, type TAuthenticator, sendJson, openApiDocument, registerEndpoint, type TRoute } from "../edge";
import { createDecideHandler } from "./decide/handler";
import { createIdempotencyCache } from "./decide/idempotency";
import { maintainPartitions } from "./decision-log/partitions";
import { startRollupRoller } from "./decision-log/roller";
import { announceBacklog, withdrawBacklog } from "./decision-log/backlog";
import { IDEMPOTENCY_WINDOW_MS, type TDecisionRow } from "./decision-log/rows";
import { createDecisionLog, type TDecisionLogOptions, type TDecisionLogStats } from "./decision-log/writer";
import { createGetDecisionHandler } from "./decisions-get";
import { loadConfig, type TConfigLoadResult } from "./load-config";
import { createRoutingState, type RoutingState } from "./routing-state";
import type { TDataPlaneSettings } from "./settings";
import { createSpool } from "./spool";
import { observeDecisions } from "./metrics/counters";
import { createClusterQuota, pruneEndedQuotaWindows } from "./quota/cluster-quota";
import type { TOpenDecisionStore } from "./decision-log/store";
import { oneAtATime } from "../runtime";

export type TDataPlaneOptions = {
  databaseUrl: string;
  prisma: PrismaClient;
  version: string;
  /** The embedded demo database: no API key needed when none is configured. */
  embeddedDatabase: boolean;
  settings: TDataPlaneSettings;
  log: (line: string) => void;
  /** Who may call; default: dataPlaneAuthenticator from the settings' API key and `embeddedDatabase`. */
  authenticate?: TAuthenticator;
  now?: () => number;
  /** Another store for decisions (lib/decision-store, opened on this data plane's pool); default the decision table. */
  openDecisionStore?: TOpenDecisionStore;
  /** Overrides for tests (small batches, fast probes). */
  decisionLog?: { maxBatch?: number; concurrency?: number; probeIntervalMs?: number; backlog?: TDecisionLogOptions["backlog"] };
};

export type TDataPlaneHealth = {
  dbAvailable: boolean;
  stateAgeMs: number | null;
  decisionLog: TDecisionLogStats;
  /** Call and token quotas: shared false while Postgres is unreachable (each instance spends limit / instances). */
  quotas: { shared: boolean; leases: number; windows: Array<{ provider: string; unit: string; windowSeconds: number; spent: number; granted: number }> };
};

const HOUR_MS = 3_600_000;

registerEndpoint({
  method: "get",
  path: "/api/v1/openapi.json",
  summary: "This document",
  tags: ["meta"],
  authenticated: false,
  responses: { 200: { description: "OpenAPI 3.1 description of the data-plane API" } },
});

/**
 * The request-path half of the data plane: routing state, the decision log (group-commit
 * writer, spool, partitions) and the decide/decision routes. Telemetry (outcomes, metrics,
 * controller, propagation) plugs into `state` and calls `reloadConfig`.
 */
export async function startDataPlane(opts: TDataPlaneOptions) {
  const s = opts.settings;
  const now = opts.now ?? Date.now;
  const authenticate = opts.authenticate ?? dataPlaneAuthenticator({ apiKey: s.apiKey, embeddedDatabase: opts.embeddedDatabase, prisma: opts.prisma });
  // Its own routes take it as a dependency; routes registered beside them (execute) read this one.
  setAuthenticator(authenticate);

  // The request path never touches Prisma: its own pool, sized for the writer's transactions in
  // flight plus lookups, with a client-side timeout so a hung server spools instead of hanging decides.
  const pool = createPool({ connectionString: opts.databaseUrl, max: s.logConcurrency + 3, connectionTimeoutMillis: 2_000, query_timeout: 10_000 });

  const state: RoutingState = createRoutingState({ now });
  const partitionOptions = { daysAhead: s.partitionDaysAhead, retentionDays: s.retentionDays };
  const spool = createSpool<TDecisionRow>({ dir: s.spoolDir, name: "decisions", maxBytes: s.spoolMaxBytes });
  const store = opts.openDecisionStore ? await opts.openDecisionStore(pool) : null;
  if (store) opts.log(`decision store: ${store.describe}`);
  const decisionLog = createDecisionLog({
    store: store?.log,
    pool,
    spool,
    durability: s.durability,
    maxBuffered: s.maxBuffered,
    concurrency: Math.max(s.logConcurrency, store?.logConcurrency ?? 1),
    // A store asking for batches in flight gets them under a backlog only: full batches, not many small ones.
    ...(store?.logConcurrency ? { extraBatchAt: s.logMaxBatch } : {}),
    maxBatch: s.logMaxBatch,
    lingerMs: s.logLingerMs,
    partitions: partitionOptions,
    onAvailability: (up) => state.setDbAvailable(up),
    backlog: { announce: (range) => announceBacklog(pool, s.instanceId, range), withdraw: () => withdrawBacklog(pool, s.instanceId) },
    log: opts.log,
    now,
    ...opts.decisionLog,
  });
  const cache = createIdempotencyCache({ ttlMs: IDEMPOTENCY_WINDOW_MS, maxBytes: s.idempotencyCacheBytes, now });

  const runMaintenance = async () => {
    try {
      const r = await maintainPartitions(pool, { now: now(), ...partitionOptions });
      if (r.created.length + r.dropped.length > 0) {
        opts.log(`decision log partitions: created ${r.created.join(", ") || "none"}; dropped ${r.dropped.join(", ") || "none"}`);
      }
    } catch (err) {
      opts.log(`decision log partition maintenance failed, retrying within the hour: ${(err as Error).message}`);
    }
    await pruneEndedQuotaWindows(pool).catch((err: unknown) => opts.log(`quota window pruning failed, retrying within the hour: ${(err as Error).message}`));
    await store?.maintain(now()).catch((err: unknown) => opts.log(`idempotency key pruning failed, retrying within the hour: ${(err as Error).message}`));
  };
  await runMaintenance();
  const maintenanceTimer = setInterval(() => void runMaintenance(), HOUR_MS);
  maintenanceTimer.unref();
  const roller = startRollupRoller({ pool, log: opts.log });

  const quotas = createClusterQuota({ pool, instanceId: s.instanceId, now, log: opts.log, publish: (views) => state.setQuotaViews("quotas", views) });
  const stopCounting = observeDecisions((_operation, _region, provider) => quotas.consume(provider));
  // One at a time: an overlapping poll that read before a change could finish last and put it back.
  const reloadConfig = oneAtATime(async (): Promise<TConfigLoadResult> => {
    const r = await loadConfig(opts.prisma, state, now());
    quotas.configure(r.quotas);
    for (const e of r.errors) opts.log(`policy ${e.operation} version ${e.versionId} does not parse; keeping the previous one: ${e.message}`);
    return r;
  });
  await reloadConfig();
  void decisionLog.replaySpool();

  const routes: TRoute[] = [
    { method: "POST", path: "/api/v1/decide", handler: createDecideHandler({ authenticate, state, log: decisionLog, cache, instanceId: s.instanceId, now }) },
    { method: "GET", path: "/api/v1/decisions/:id", handler: createGetDecisionHandler(pool, authenticate, store?.reads) },
    {
      method: "GET",
      path: "/api/v1/openapi.json",
      handler: (_req, res) => sendJson(res, 200, openApiDocument({ version: opts.version })),
    },
  ];

  return {
    authenticate,
    state,
    decisionLog,
    pool,
    /** The other store's decision reads (outcome validation reads decisions there); null with the decision table. */
    decisionReads: store?.reads ?? null,
    routes,
    reloadConfig,
    /** A call made outside decide (a client's local decision, reported later) spends the provider's call quota. */
    spendQuota(provider: string, at: number, calls = 1): void {
      quotas.consume(provider, at, calls);
    },
    /** The tokens a call used, once its usage is known (execute mode): spent from the provider's token quotas. */
    spendTokens(provider: string, tokens: number): void {
      quotas.spendTokens(provider, tokens);
    },
    /** Each quota's limit and this instance's spend in its current window, for /metrics. */
    quotaUsage: () => quotas.usage(),
    health(): TDataPlaneHealth {
      const refreshed = state.lastRefreshAt;
      return {
        dbAvailable: state.dbAvailable && decisionLog.dbUp,
        stateAgeMs: refreshed === null ? null : Math.max(0, now() - refreshed),
        decisionLog: decisionLog.stats(),
        quotas: quotas.status(),
      };
    },
    async close(): Promise<void> {
      clearInterval(maintenanceTimer);
      stopCounting();
      quotas.close();
      await decisionLog.close();
      await roller.close();
      await store?.close();
      await pool.end();
    },
  };
}

export type DataPlane = Awaited<ReturnType<typeof startDataPlane>>;
