import type { RoutingState } from "../dataplane";
import type { AnswerCache } from "./answer-cache";
import type { BudgetGuard } from "./budget";
import type { TGatewayConfig, TOperationLimits } from "./config";
import type { TDecider } from "./decide-and-log";
import type { EventRecorder } from "./events";
import type { IdempotencyStore } from "./idempotency";
import type { DurableJobQueue } from "./durable-jobs";
import type { QuotaFeed } from "./quota-feed";
import type { RetryBudget } from "./retry-budget";

/**
 * The outcome ingestion of POST /api/v1/outcomes (telemetry's OutcomeService), entered with the
 * decision already known, since execute made it (no lookup round trip).
 */
export type TOutcomeSink = {
  record(
    outcomes: readonly unknown[],
    decisionId: string,
    decision: { operation: string; region: string; selected: string | null },
    apiKeyId?: string | null,
  ): Promise<Array<{ status: number; error?: { message: string } }>>;
};

/** Everything the execute path shares, built once by startGateway. */
export type TGatewayContext = {
  state: RoutingState;
  decide: TDecider;
  config(): TGatewayConfig;
  outcomes: TOutcomeSink;
  spendTokens(provider: string, tokens: number): void;
  budget: BudgetGuard;
  quotas: QuotaFeed;
  idempotency: IdempotencyStore;
  events: EventRecorder;
  cache: AnswerCache;
  jobs: DurableJobQueue;
  retryBudget(operation: string, limits: TOperationLimits): RetryBudget;
  backoff: { baseMs: number; capMs: number };
  now: () => number;
  random: () => number;
  env: Readonly<Record<string, string | undefined>>;
  log: (line: string) => void;
  /** Keeps background work (outcome recording) visible to flush(). */
  track(p: Promise<unknown>): void;
};
