import type {
  TBreakerView,
  TFactorList,
  TMetricSnapshot,
  TOverrides,
  TProviderInfo,
  TQuotaView,
  TRouterState,
  TShadowPolicy,
  TShares,
} from "../../router-core/index";
import { quotaOutcome } from "../../router-core/index";

/**
 * The per-instance, in-memory view decide() reads. Loaders (load-config.ts for policies,
 * providers and overrides; the telemetry side for shares, metrics, breakers and quotas) write
 * it through the setters; the request path only calls snapshotFor/policyFor, which return
 * prebuilt objects. A setter invalidates the affected prebuilt snapshots, so the hot path
 * allocates nothing unless something changed since the previous decision.
 */

/** One active operator override as stored in Postgres; null operation/region means "all". */
export type TOverrideRow = {
  kind: "routing_kill_switch" | "provider_kill" | "provider_pin";
  operation: string | null;
  region: string | null;
  provider: string | null;
  reason: string;
  /** Epoch ms; null never expires. */
  expiresAt: number | null;
};

export type TActivePolicy = {
  policy: TFactorList;
  /** Label copied into decision records, e.g. "v3". */
  version: string;
  shadow: TShadowPolicy | null;
};

type TRegionEntry = {
  shares: TShares | null;
  metrics: Record<string, TMetricSnapshot>;
  breakers: Record<string, TBreakerView>;
  /** Prebuilt snapshot; null when a setter invalidated it. */
  snapshot: TRouterState | null;
  /** Epoch ms when an override in the snapshot expires and it must be rebuilt; Infinity: never. */
  validUntil: number;
};

type TOperationEntry = {
  active: TActivePolicy | null;
  regions: Map<string, TRegionEntry>;
  /** Regions a decide may name: the policy's region rules plus every region its providers serve. */
  knownRegions: readonly string[];
  knownRegionSet: ReadonlySet<string>;
};

export type RoutingState = ReturnType<typeof createRoutingState>;

/** What the parts of the routing state share: per-operation entries and the instance-wide views. */
type TStore = {
  operations: Map<string, TOperationEntry>;
  providers: readonly TProviderInfo[];
  quotas: Readonly<Record<string, TQuotaView>>;
  overrides: readonly TOverrideRow[];
};

function operationEntry(store: TStore, operation: string): TOperationEntry {
  let e = store.operations.get(operation);
  if (!e) {
    e = { active: null, regions: new Map(), knownRegions: [], knownRegionSet: new Set() };
    store.operations.set(operation, e);
  }
  return e;
}

function regionEntry(op: TOperationEntry, region: string): TRegionEntry {
  let r = op.regions.get(region);
  if (!r) {
    r = { shares: null, metrics: {}, breakers: {}, snapshot: null, validUntil: Infinity };
    op.regions.set(region, r);
  }
  return r;
}

function recomputeKnownRegions(op: TOperationEntry, providers: readonly TProviderInfo[]): void {
  const set = new Set<string>();
  if (op.active) {
    const policy = op.active.policy;
    for (const r of Object.keys(policy.regions)) set.add(r);
    const listed = policy.providers.length > 0 ? new Set(policy.providers) : null;
    for (const p of providers) {
      if (listed && !listed.has(p.key)) continue;
      for (const r of p.regions) if (r !== "*") set.add(r);
    }
  }
  op.knownRegions = [...set].sort();
  op.knownRegionSet = set;
}

function invalidate(op: TOperationEntry | undefined): void {
  if (!op) return;
  for (const r of op.regions.values()) r.snapshot = null;
}

function invalidateAll(store: TStore): void {
  for (const op of store.operations.values()) invalidate(op);
}

/** Folds the override rows that apply to (operation, region) into router-core's shape. */
function overridesFor(
  overrides: readonly TOverrideRow[],
  operation: string,
  region: string,
  now: number,
): { value: TOverrides | undefined; validUntil: number } {
  let routingKilled = false;
  const killed: string[] = [];
  let pin: TOverrides["pin"] = null;
  let pinSpecificity = -1;
  let validUntil = Infinity;
  for (const o of overrides) {
    if (o.operation !== null && o.operation !== operation) continue;
    if (o.region !== null && o.region !== region) continue;
    if (o.expiresAt !== null) {
      if (o.expiresAt <= now) continue;
      validUntil = Math.min(validUntil, o.expiresAt);
    }
    if (o.kind === "routing_kill_switch") routingKilled = true;
    else if (o.kind === "provider_kill" && o.provider) killed.push(o.provider);
    else if (o.kind === "provider_pin" && o.provider) {
      // The most specific pin wins (region over operation over global); equal specificity: the later row.
      if (specificity(o) >= pinSpecificity) {
        pin = { provider: o.provider, reason: o.reason, expiresAt: o.expiresAt ?? Number.MAX_SAFE_INTEGER };
        pinSpecificity = specificity(o);
      }
    }
  }
  if (!routingKilled && killed.length === 0 && !pin) return { value: undefined, validUntil };
  return { value: { routingKilled, killedProviders: killed, pin }, validUntil };
}

/** What the request path and the views read; snapshotFor rebuilds only what a setter invalidated. */
function stateReader(store: TStore, clock: { now(): number }) {
  return {
    /** The state decide() needs for (operation, region); null when either is unknown here. */
    snapshotFor(operation: string, region: string): TRouterState | null {
      const op = store.operations.get(operation);
      if (!op || !op.active || !op.knownRegionSet.has(region)) return null;
      const r = regionEntry(op, region);
      const now = clock.now();
      if (r.snapshot && now < r.validUntil) return r.snapshot;
      const o = overridesFor(store.overrides, operation, region, now);
      r.validUntil = o.validUntil;
      r.snapshot = {
        providers: store.providers,
        metrics: r.metrics,
        breakers: r.breakers,
        quotas: store.quotas,
        shares: r.shares,
        overrides: o.value,
        policyVersion: op.active.version,
      };
      return r.snapshot;
    },

    policyFor(operation: string): TActivePolicy | null {
      return store.operations.get(operation)?.active ?? null;
    },

    hasOperation(operation: string): boolean {
      return store.operations.get(operation)?.active != null;
    },

    operations(): string[] {
      return [...store.operations.entries()]
        .filter(([, e]) => e.active)
        .map(([k]) => k)
        .sort();
    },

    knownRegions(operation: string): readonly string[] {
      return store.operations.get(operation)?.knownRegions ?? [];
    },

    providers(): readonly TProviderInfo[] {
      return store.providers;
    },

    overrides(): readonly TOverrideRow[] {
      return store.overrides;
    },

    /** Per (operation, region) views for /metrics and the console. */
    regionViews(
      operation: string,
    ): Array<{ region: string; shares: TShares | null; metrics: Readonly<Record<string, TMetricSnapshot>>; breakers: Readonly<Record<string, TBreakerView>> }> {
      const op = store.operations.get(operation);
      if (!op) return [];
      return [...op.regions.entries()].map(([region, r]) => ({
        region,
        shares: r.shares,
        metrics: r.metrics,
        breakers: r.breakers,
      }));
    },
  };
}

/** The configuration side's setters (load-config.ts): policies, the provider catalogue, overrides. */
function configWriter(store: TStore) {
  function setPolicy(operation: string, active: TActivePolicy | null): void {
    const op = operationEntry(store, operation);
    op.active = active;
    recomputeKnownRegions(op, store.providers);
    invalidate(op);
  }
  return {
    /** Replaces the operation's policy; null removes the operation (no active version any more). */
    setPolicy,

    /** Replaces every operation's policy at once; operations missing from `all` are dropped. */
    replacePolicies(all: ReadonlyMap<string, TActivePolicy>): void {
      for (const [key, op] of store.operations) {
        if (!all.has(key)) {
          op.active = null;
          recomputeKnownRegions(op, store.providers);
          invalidate(op);
        }
      }
      for (const [key, active] of all) setPolicy(key, active);
    },

    setProviders(catalogue: readonly TProviderInfo[]): void {
      // A new array only when the catalogue is replaced: router-core caches candidate order by identity.
      store.providers = catalogue;
      for (const op of store.operations.values()) recomputeKnownRegions(op, catalogue);
      invalidateAll(store);
    },

    /** Every active override row (all operations); expired ones are ignored at snapshot time. */
    setOverrides(rows: readonly TOverrideRow[]): void {
      store.overrides = rows;
      invalidateAll(store);
    },
  };
}

/** The telemetry side's setters: shares, metrics, breakers and quotas. */
function telemetryWriter(store: TStore, clock: { now(): number }) {
  const sources = new Map<string, Record<string, TQuotaView>>();
  // What the gate would fail on, asked of the gate itself.
  const exhausted = (v: TQuotaView) => !quotaOutcome(v, clock.now()).passed;
  function setSource(source: string, views: Record<string, TQuotaView>): void {
    sources.set(source, views);
    if (sources.size === 1) store.quotas = views;
    else {
      const merged: Record<string, TQuotaView> = {};
      for (const vs of sources.values()) for (const [p, v] of Object.entries(vs)) if (!merged[p] || (exhausted(v) && !exhausted(merged[p]!))) merged[p] = v;
      store.quotas = merged;
    }
    invalidateAll(store);
  }
  return {
    setShares(operation: string, region: string, shares: TShares | null): void {
      const op = operationEntry(store, operation);
      regionEntry(op, region).shares = shares;
      invalidate(op);
    },

    setMetrics(operation: string, region: string, metrics: Record<string, TMetricSnapshot>): void {
      const op = operationEntry(store, operation);
      regionEntry(op, region).metrics = metrics;
      invalidate(op);
    },

    /** Views keyed `provider|region` or `provider`, as router-core reads them. */
    setBreakers(operation: string, region: string, breakers: Record<string, TBreakerView>): void {
      const op = operationEntry(store, operation);
      regionEntry(op, region).breakers = breakers;
      invalidate(op);
    },

    /**
     * One source's views (the 429 throttles, the cluster's call quotas), per provider key: quotas
     * belong to the provider account, so they span operations. The gate reads them merged, an
     * exhausted view winning over one that still admits.
     */
    setQuotaViews(source: string, views: Record<string, TQuotaView>): void {
      setSource(source, views);
    },
  };
}

export function createRoutingState(clock: { now(): number } = Date) {
  const store: TStore = { operations: new Map(), providers: [], quotas: {}, overrides: [] };
  let dbAvailable = true;
  let lastOutage: { oldest: number; newest: number | null } | null = null;
  let lastRefreshAt: number | null = null;

  const read = stateReader(store, clock);
  const config = configWriter(store);
  const telemetry = telemetryWriter(store, clock);
  // Spelled out rather than spread: the request path calls these on every decide, and an object
  // literal with named properties keeps one fixed shape for them.
  return {
    snapshotFor: read.snapshotFor,
    policyFor: read.policyFor,
    hasOperation: read.hasOperation,
    operations: read.operations,
    knownRegions: read.knownRegions,
    providers: read.providers,
    overrides: read.overrides,
    regionViews: read.regionViews,
    setPolicy: config.setPolicy,
    replacePolicies: config.replacePolicies,
    setProviders: config.setProviders,
    setOverrides: config.setOverrides,
    setShares: telemetry.setShares,
    setMetrics: telemetry.setMetrics,
    setBreakers: telemetry.setBreakers,
    setQuotaViews: telemetry.setQuotaViews,

    setDbAvailable(available: boolean): void {
      const at = clock.now();
      if (dbAvailable && !available) lastOutage = { oldest: at, newest: null };
      else if (!dbAvailable && available && lastOutage) lastOutage = { oldest: lastOutage.oldest, newest: at };
      dbAvailable = available;
    },

    /** The latest period this instance could not reach Postgres (`newest` null while it lasts); null if none. */
    get lastDbOutage(): { oldest: number; newest: number | null } | null {
      return lastOutage;
    },

    get dbAvailable(): boolean {
      return dbAvailable;
    },

    markRefreshed(at: number = clock.now()): void {
      lastRefreshAt = at;
    },

    get lastRefreshAt(): number | null {
      return lastRefreshAt;
    },
  };
}

function specificity(o: TOverrideRow): number {
  return (o.operation !== null ? 1 : 0) + (o.region !== null ? 2 : 0);
}
