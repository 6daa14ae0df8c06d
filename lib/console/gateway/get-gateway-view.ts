import "server-only";
import { getPrisma } from "@/lib/db";
import { spendWindowsAt, DEFAULT_OPERATION_LIMITS, ZProviderAdapterRow, type TOperationLimits, CREDENTIAL_REF_PATTERN, resolveCredential } from "@/lib/gateway";
import { FALLBACK_POLICIES } from "@/router-core/policy/names";
import { gatewayRuntime, type TGatewayRuntimeState } from "./gateway-runtime";

/** Gateway events are shift_event rows of these types (lib/gateway/events.ts). */
export const GATEWAY_EVENT_TYPES = ["budget_breach", "max_fallback_duration"] as const;
const EVENT_LIMIT = 50;

export type TGatewayOperationRow = {
  operation: string;
  /** false: no gateway_operation row, execute uses the defaults. */
  configured: boolean;
  limits: TOperationLimits;
  policyVersion: string | null;
  fallbackPolicy: string | null;
  /** What the fallback policy does when nothing is eligible or a budget is breached. */
  fallbackAction: string | null;
  providers: string[];
  /** Providers of the active factor list that have a valid adapter: execute can call them. */
  callable: string[];
  /**
   * Spend in the current minute and UTC day by every instance, against the caps: the larger of
   * gateway_spend's sum (written by each instance about every second) and what this instance's
   * guard counts (its own unshared spend plus the others' as of its last sync). Both lag by at
   * most a sync; each misses a different part, so neither alone is the better lower bound.
   */
  spend: { minute: number; day: number };
  runtime: TGatewayRuntimeState | null;
};

export type TGatewayAdapterRow = {
  provider: string;
  kind: string;
  model: string | null;
  /** Only the host: a base URL can carry user info or a query string with a key. */
  host: string | null;
  /** The reference's name (env:NAME or file:/path); never the value it resolves to. */
  credentialRef: string | null;
  /** Whether the reference resolves in this server process; null without a reference. */
  credentialAvailable: boolean | null;
  contextWindow: number | null;
  inputPricePer1k: number | null;
  outputPricePer1k: number | null;
  timeoutMs: number;
  /** Why the gateway skips this row (its provider then fails adapter_configured), or null. */
  error: string | null;
  operations: string[];
};

export type TGatewayEventRow = {
  id: string;
  at: number;
  operation: string;
  region: string;
  type: string;
  kind: string | null;
  provider: string | null;
  detail: string;
  policyVersion: string | null;
};

export type TGatewayView = {
  now: number;
  /** The instance whose in-memory state (spend, retry budgets, queue) is shown; null when not observable here. */
  instance: { id: string; queuedJobs: number } | null;
  operations: TGatewayOperationRow[];
  adapters: TGatewayAdapterRow[];
  events: TGatewayEventRow[];
};

function hostOf(baseUrl: string): string | null {
  try {
    return new URL(baseUrl).host || null;
  } catch {
    return null;
  }
}

const num = (v: unknown): number | null => (v === null || v === undefined ? null : Number(v));

type TPrisma = ReturnType<typeof getPrisma>;

/** Everything the page reads, in one round of parallel queries. */
function readGatewayTables(prisma: TPrisma, now: number) {
  const windows = spendWindowsAt(now);
  const minuteStart = new Date(windows.minuteStart);
  const dayStart = new Date(windows.dayStart);
  return Promise.all([
    prisma.operation.findMany({ orderBy: { key: "asc" }, select: { key: true, policy: { select: { activeVersionId: true } } } }),
    prisma.factorListVersion.findMany({ where: { status: "active" }, select: { id: true, version: true, document: true } }),
    prisma.gatewayOperation.findMany(),
    prisma.providerAdapter.findMany({
      orderBy: { providerKey: "asc" },
      select: {
        providerKey: true,
        kind: true,
        baseUrl: true,
        model: true,
        contextWindow: true,
        inputPricePer1k: true,
        outputPricePer1k: true,
        credentialRef: true,
        timeoutMs: true,
      },
    }),
    prisma.shiftEvent.findMany({
      where: { type: { in: [...GATEWAY_EVENT_TYPES] } },
      orderBy: [{ at: "desc" }, { id: "desc" }],
      take: EVENT_LIMIT,
      select: { id: true, at: true, operationKey: true, region: true, type: true, providerKey: true, detail: true, evidence: true, policyVersion: true },
    }),
    prisma.$queryRaw<{ operation_key: string; window_kind: string; amount: number }[]>`
      select operation_key, window_kind, sum(amount)::float8 as amount from gateway_spend
       where (window_kind = 'minute' and window_start = ${minuteStart}) or (window_kind = 'day' and window_start = ${dayStart})
       group by 1, 2`,
  ]);
}

type TTables = Awaited<ReturnType<typeof readGatewayTables>>;

function toAdapterRow(r: TTables[3][number], env: Readonly<Record<string, string | undefined>>, now: number): TGatewayAdapterRow {
  // The same validation the gateway applies when it loads the table (options are checked when it builds the adapter).
  const parsed = ZProviderAdapterRow.safeParse({
    provider_key: r.providerKey,
    kind: r.kind,
    base_url: r.baseUrl,
    model: r.model,
    context_window: r.contextWindow,
    input_price_per_1k: r.inputPricePer1k,
    output_price_per_1k: r.outputPricePer1k,
    credential_ref: r.credentialRef,
    timeout_ms: r.timeoutMs,
    options: {},
  });
  const refIsReference = r.credentialRef === null || CREDENTIAL_REF_PATTERN.test(r.credentialRef);
  return {
    provider: r.providerKey,
    kind: r.kind,
    model: r.model,
    host: hostOf(r.baseUrl),
    // Something that is not a reference might be the secret itself: it is never echoed.
    credentialRef: refIsReference ? r.credentialRef : null,
    credentialAvailable: r.credentialRef === null || !refIsReference ? null : resolveCredential(r.credentialRef, env, now).ok,
    contextWindow: r.contextWindow,
    inputPricePer1k: r.inputPricePer1k,
    outputPricePer1k: r.outputPricePer1k,
    timeoutMs: r.timeoutMs,
    error: parsed.success
      ? null
      : parsed.error.issues
          .map(
            (i) => `${i.path.join(".") || "(row)"}: ${i.path[0] === "credential_ref" ? "not a reference (env:NAME or file:/path); value hidden" : i.message}`,
          )
          .join("; "),
    operations: [],
  };
}

/** An operation's execute limits: its gateway_operation row, else the defaults. */
function limitsOf(row: TTables[2][number] | undefined): TOperationLimits {
  if (!row) return { ...DEFAULT_OPERATION_LIMITS };
  return {
    deadlineMs: row.deadlineMs,
    maxAttempts: Math.max(1, row.maxAttempts),
    retryBudgetRatio: row.retryBudgetRatio,
    retryBudgetMinPerSecond: row.retryBudgetMinPerSecond,
    costCapPerMinute: num(row.costCapPerMinute),
    costCapPerDay: num(row.costCapPerDay),
    maxFallbackSeconds: num(row.maxFallbackSeconds),
    cacheTtlSeconds: num(row.cacheTtlSeconds),
    idempotencyWindowSeconds: row.idempotencyWindowSeconds,
  };
}

function toEventRow(e: TTables[4][number]): TGatewayEventRow {
  const evidence = (e.evidence ?? {}) as { kind?: unknown };
  return {
    id: e.id.toString(),
    at: e.at.getTime(),
    operation: e.operationKey,
    region: e.region,
    type: e.type,
    kind: typeof evidence.kind === "string" ? evidence.kind : null,
    provider: e.providerKey,
    detail: e.detail,
    policyVersion: e.policyVersion,
  };
}

type TOperationContext = {
  versionById: Map<string, TTables[1][number]>;
  limitsByOperation: Map<string, TTables[2][number]>;
  adapterByProvider: Map<string, TGatewayAdapterRow>;
  /** Spend from gateway_spend, by operation and window kind. */
  shared: Map<string, number>;
  runtime: ReturnType<typeof gatewayRuntime>;
};

/** One operation's row; records the operation on the adapters of its providers. */
function toOperationRow(o: TTables[0][number], ctx: TOperationContext): TGatewayOperationRow {
  const active = (o.policy?.activeVersionId && ctx.versionById.get(o.policy.activeVersionId)) || null;
  const doc = (active?.document ?? {}) as { providers?: unknown; fallback_policy?: unknown };
  const providers = Array.isArray(doc.providers) ? doc.providers.filter((p): p is string => typeof p === "string") : [];
  const fallbackPolicy = typeof doc.fallback_policy === "string" ? doc.fallback_policy : null;
  const row = ctx.limitsByOperation.get(o.key);
  const limits = limitsOf(row);
  const callable = providers.filter((p) => {
    const a = ctx.adapterByProvider.get(p);
    if (a) a.operations.push(o.key);
    return a !== undefined && a.error === null;
  });
  // Only operations execute can serve have state worth reading (and reading creates it).
  const state = ctx.runtime && callable.length > 0 ? ctx.runtime.operation(o.key, limits) : null;
  return {
    operation: o.key,
    configured: row !== undefined,
    limits,
    policyVersion: active ? `v${active.version}` : null,
    fallbackPolicy,
    fallbackAction: fallbackPolicy && fallbackPolicy in FALLBACK_POLICIES ? FALLBACK_POLICIES[fallbackPolicy as keyof typeof FALLBACK_POLICIES] : null,
    providers,
    callable,
    spend: {
      minute: Math.max(ctx.shared.get(`${o.key}\u001fminute`) ?? 0, state?.spentMinute ?? 0),
      day: Math.max(ctx.shared.get(`${o.key}\u001fday`) ?? 0, state?.spentDay ?? 0),
    },
    runtime: state,
  };
}

/**
 * The Gateway page: execute mode's configuration per operation and per provider adapter, spend
 * so far against the cost caps (all instances), the state this instance holds (retry budget use,
 * fallback period, queued jobs) and the latest budget events. Credentials appear by reference only; adapter options (header and
 * body templates) are not read, since an operator may have written a literal secret there.
 */
export async function getGatewayView(now = Date.now(), env: Readonly<Record<string, string | undefined>> = process.env): Promise<TGatewayView> {
  const [operations, activeVersions, limitRows, adapterRows, events, spendRows] = await readGatewayTables(getPrisma(), now);
  const adapters = adapterRows.map((r) => toAdapterRow(r, env, now));
  const runtime = gatewayRuntime();
  const ctx: TOperationContext = {
    versionById: new Map(activeVersions.map((v) => [v.id, v])),
    limitsByOperation: new Map(limitRows.map((r) => [r.operationKey, r])),
    adapterByProvider: new Map(adapters.map((a) => [a.provider, a])),
    shared: new Map(spendRows.map((r) => [`${r.operation_key}\u001f${r.window_kind}`, r.amount])),
    runtime,
  };
  const rows = operations.map((o) => toOperationRow(o, ctx));
  return {
    now,
    instance: runtime ? { id: runtime.instanceId, queuedJobs: runtime.queuedJobs() } : null,
    operations: rows,
    adapters,
    events: events.map(toEventRow),
  };
}
