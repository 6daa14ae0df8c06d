import type pg from "pg";
import type { Random } from "../../router-core/index";
import type { DecisionLog, RoutingState } from "../dataplane";
import type { TRoute } from "../edge";
import { createAnswerCache } from "./answer-cache";
import { createBudgetGuard } from "./budget";
import { loadGatewayConfig, type TGatewayConfig, type TOperationLimits } from "./config";
import type { TGatewayContext, TOutcomeSink } from "./context";
import { createDecider } from "./decide-and-log";
import { createEventRecorder } from "./events";
import { createExecuteHandler, createJobHandler, executeJson } from "./handler";
import { createIdempotencyStore } from "./idempotency";
import { createDurableJobQueue } from "./durable-jobs";
import { createThrottleSync } from "./throttle-sync";
import { newRequestId } from "./prepare";
import { createQuotaFeed } from "./quota-feed";
import { createRetryBudget, type RetryBudget } from "./retry-budget";
import { createSpendSync } from "./spend-sync";
import type { TExecuteRequest } from "./schema";

export type TGatewayOptions = {
  /** The data plane's: routing state, decision log and request-path pool. */
  state: RoutingState;
  decisionLog: DecisionLog;
  pool: pg.Pool;
  /** Telemetry's outcome ingestion (the one behind POST /api/v1/outcomes). */
  outcomes: TOutcomeSink;
  /** The data plane's token quotas (DataPlane.spendTokens): a call's tokens are spent once its usage is known. */
  spendTokens?: (provider: string, tokens: number) => void;
  instanceId: string;
  log?: (line: string) => void;
  now?: () => number;
  random?: Random;
  env?: Readonly<Record<string, string | undefined>>;
  /** How often provider_adapter and gateway_operation are re-read (GATEWAY_CONFIG_REFRESH_MS, default 5000). */
  refreshMs?: number;
  /** Backoff between failover attempts (full jitter); defaults base 25 ms, cap 1 s. */
  backoff?: { baseMs: number; capMs: number };
  /** How often spend is shared with the other instances (gateway_spend); default 1000 ms. */
  spendSyncMs?: number;
  /** How often an idle instance looks for due queued jobs (execute_job); default 500 ms. */
  queuePollMs?: number;
};

const EMPTY: TGatewayConfig = { adapters: new Map(), limits: new Map(), errors: [] };

/**
 * Execute mode (lib/gateway/README.md): the routes POST /api/v1/execute/:operation and
 * GET /api/v1/execute/jobs/:id on the data-plane fast path, sharing the data plane's routing
 * state and decision log and telemetry's outcome ingestion.
 */
export async function startGateway(opts: TGatewayOptions) {
  const now = opts.now ?? Date.now;
  const log = opts.log ?? (() => {});
  const env = opts.env ?? process.env;
  const random = opts.random ?? { next: Math.random };
  const configs = createConfigReloader(opts.pool, log);
  const reload = configs.reload;
  await reload().catch((err: unknown) => log(`gateway: initial config load failed: ${(err as Error).message}`));

  const inflight = new Set<Promise<unknown>>();
  const quotas = createQuotaFeed(opts.state, now);
  const idempotency = createIdempotencyStore({ pool: opts.pool, ownerId: opts.instanceId, now, log });
  const budget = createBudgetGuard(now);
  const spendSync = createSpendSync({ pool: opts.pool, guard: budget, instanceId: opts.instanceId, intervalMs: opts.spendSyncMs, now, log });
  const throttleSync = createThrottleSync({ pool: opts.pool, feed: quotas, instanceId: opts.instanceId, intervalMs: opts.spendSyncMs, now, log });

  const ctx: TGatewayContext = {
    state: opts.state,
    decide: createDecider({ state: opts.state, log: opts.decisionLog, instanceId: opts.instanceId, now, random }),
    config: configs.current,
    outcomes: opts.outcomes,
    spendTokens: opts.spendTokens ?? (() => {}),
    budget,
    quotas,
    idempotency,
    events: createEventRecorder(opts.pool, log, now, (p) => ctx.track(p)),
    cache: createAnswerCache(10_000, now),
    jobs: createDurableJobQueue({
      pool: opts.pool,
      instanceId: opts.instanceId,
      pollMs: opts.queuePollMs,
      now,
      log,
      run: async (payload, jobId) => {
        const { operation, input } = payload as { operation: string; input: TExecuteRequest };
        // Every run of the job sends the provider the same key: a run repeated after its instance died mid-call stays one call where the provider honours keys.
        const r = await executeJson(ctx, operation, input, newRequestId(), jobIdempotencyKey(jobId), null, null);
        return { answer: r.answer, retryAfterSeconds: r.definitive ? null : r.retryAfterSeconds };
      },
    }),
    retryBudget: retryBudgetsBy(now),
    backoff: opts.backoff ?? { baseMs: 25, capMs: 1_000 },
    now,
    random: () => random.next(),
    env,
    log,
    track(p) {
      inflight.add(p);
      void p.finally(() => inflight.delete(p));
    },
  };

  const refreshMs = opts.refreshMs ?? 5_000;
  const refresher = setInterval(() => void reload().catch(() => {}), refreshMs);
  refresher.unref();
  const pruner = setInterval(() => void idempotency.prune().catch(() => {}), 60_000);
  pruner.unref();

  const routes: TRoute[] = [
    { method: "POST", path: "/api/v1/execute/:operation", handler: createExecuteHandler(ctx) },
    { method: "GET", path: "/api/v1/execute/jobs/:id", handler: createJobHandler(ctx) },
  ];

  return {
    routes,
    reload,
    context: ctx,
    spendSync,
    throttleSync,
    /** For /api/v1/health: what execute mode can call and what it holds. */
    health() {
      const config = configs.current();
      return {
        adapters: config.adapters.size,
        adapterErrors: config.errors,
        operationsWithLimits: config.limits.size,
        queuedJobs: ctx.jobs.depth,
        // false while Postgres is unreachable: jobs queued now wait in this instance's memory.
        queueDurable: ctx.jobs.durable,
        // false while Postgres is unreachable: throttles learned from 429s are this instance's own.
        throttlesShared: throttleSync.status().shared,
        outcomeReportsInFlight: inflight.size,
      };
    },
    /** Waits for outcome recordings in flight (tests, shutdown). */
    async flush(): Promise<void> {
      while (inflight.size > 0) await Promise.allSettled([...inflight]);
    },
    async close(): Promise<void> {
      clearInterval(refresher);
      clearInterval(pruner);
      quotas.close();
      await ctx.jobs.close();
      await this.flush();
      await spendSync.close();
      await throttleSync.close();
    },
  };
}

export type Gateway = Awaited<ReturnType<typeof startGateway>>;

/** The gateway configuration as last loaded, and the reload that refreshes it (periodic and on notices). */
function createConfigReloader(pool: pg.Pool, log: (line: string) => void): { reload(): Promise<TGatewayConfig>; current(): TGatewayConfig } {
  let config = EMPTY;
  let lastErrors = "";
  let started = 0;
  let applied = 0;
  return {
    async reload(): Promise<TGatewayConfig> {
      // Periodic and notified reloads may overlap: a read that started earlier must not overwrite a later one.
      const generation = ++started;
      const next = await loadGatewayConfig(pool);
      if (generation < applied) return config;
      applied = generation;
      const errors = next.errors.map((e) => `${e.provider}: ${e.message}`).join("; ");
      if (errors !== lastErrors && errors !== "") log(`gateway: provider_adapter rows skipped: ${errors}`);
      lastErrors = errors;
      config = next;
      return next;
    },
    current: () => config,
  };
}

/** One retry budget per operation, replaced when the operation's limits change. */
function retryBudgetsBy(now: () => number): (operation: string, limits: TOperationLimits) => RetryBudget {
  const budgets = new Map<string, { budget: RetryBudget; ratio: number; min: number }>();
  return (operation, limits) => {
    const b = budgets.get(operation);
    if (b && b.ratio === limits.retryBudgetRatio && b.min === limits.retryBudgetMinPerSecond) return b.budget;
    const budget = createRetryBudget({ ratio: limits.retryBudgetRatio, minPerSecond: limits.retryBudgetMinPerSecond }, now);
    budgets.set(operation, { budget, ratio: limits.retryBudgetRatio, min: limits.retryBudgetMinPerSecond });
    return budget;
  };
}

/** GATEWAY_CONFIG_REFRESH_MS: how often adapters and limits are re-read; a bad value stops the start. */
export function gatewayRefreshMsFromEnv(env: Readonly<Record<string, string | undefined>>): number | undefined {
  const raw = env.GATEWAY_CONFIG_REFRESH_MS;
  if (raw === undefined || raw === "") return undefined;
  const n = Number(raw);
  if (!Number.isInteger(n) || n < 100) throw new RangeError(`GATEWAY_CONFIG_REFRESH_MS must be an integer >= 100, got ${JSON.stringify(raw)}`);
  return n;
}

/** The Idempotency-Key a queued job's provider calls carry. */
export function jobIdempotencyKey(jobId: string): string {
  return `switchyard-job-${jobId}`;
}
