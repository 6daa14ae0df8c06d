import type { Gateway, TOperationLimits } from "@/lib/gateway";
import { readProcessSlot, writeProcessSlot } from "@/lib/runtime";

/**
 * What execute mode holds in memory (its view of spend against the cost caps, retry budgets, the
 * job queue, the fallback period) is per instance and lives in the server process beside Next, so the console reads it through
 * a process slot (lib/runtime/process-slots.ts): Next bundles its own copy of lib/ modules, and module state would not
 * be shared. The boot publishes the gateway once it has started; a process without one (a
 * Next-only dev server, tests) reads null and the page says the state is not observable.
 * No "server-only" import: the boot runs outside Next.
 */
export type TGatewayRuntimeSource = {
  context: Pick<Gateway["context"], "budget" | "retryBudget" | "jobs">;
};

export type TGatewayRuntimeState = {
  /** All instances' spend in the current minute and UTC day as this instance's budget guard counts it (its own plus the others' as of its last sync). */
  spentMinute: number;
  spentDay: number;
  spentMinuteThisInstance: number;
  spentDayThisInstance: number;
  fallbackSince: number | null;
  retry: { requests: number; retries: number; allowed: number; windowSeconds: number };
};

export type TGatewayRuntime = {
  instanceId: string;
  queuedJobs(): number;
  operation(operation: string, limits: TOperationLimits): TGatewayRuntimeState;
};

export function publishGatewayRuntime(gateway: TGatewayRuntimeSource, instanceId: string): void {
  const ctx = gateway.context;
  writeProcessSlot<TGatewayRuntime>("gatewayRuntime", {
    instanceId,
    queuedJobs: () => ctx.jobs.depth,
    operation(operation, limits) {
      const spend = ctx.budget.snapshot(operation);
      // The same budget execute's next request would use (created empty if none ran yet).
      const stats = ctx.retryBudget(operation, limits).stats();
      return {
        spentMinute: spend.spentMinute,
        spentDay: spend.spentDay,
        spentMinuteThisInstance: spend.spentMinuteThisInstance,
        spentDayThisInstance: spend.spentDayThisInstance,
        fallbackSince: spend.fallbackSince,
        retry: {
          requests: stats.requests,
          retries: stats.retries,
          allowed: Math.floor(Math.max(limits.retryBudgetRatio * stats.requests, limits.retryBudgetMinPerSecond * stats.windowSeconds)),
          windowSeconds: stats.windowSeconds,
        },
      };
    },
  });
}

export function unpublishGatewayRuntime(): void {
  writeProcessSlot("gatewayRuntime", undefined);
}

export function gatewayRuntime(): TGatewayRuntime | null {
  return readProcessSlot<TGatewayRuntime>("gatewayRuntime") ?? null;
}
