import type pg from "pg";
import {
  createMetricStore,
  FAILURE_STAGES,
  ROUTING_DEFAULTS,
  HISTOGRAM_BUCKETS,
  mergeBucketInto,
  bucketKey,
  type MetricStore,
  type TBusinessOutcomeEvent,
  type TMetricBucket,
  type TMetricKey,
  type TProviderCallEvent,
} from "../../../router-core/index";
import type { RoutingState } from "../routing-state";

/** One width for every instance: buckets of different widths cannot be merged exactly. */
export const METRIC_BUCKET_SECONDS = ROUTING_DEFAULTS.bucketSeconds;
const WIDTH_MS = METRIC_BUCKET_SECONDS * 1000;
const DEFAULT_REFRESH_SECONDS = 30;
const DEFAULT_WINDOW_MINUTES = 5;

export type TMetricSyncOptions = {
  pool: pg.Pool;
  state: RoutingState;
  now?: () => number;
  /** Fixed refresh period (tests, METRICS_REFRESH_MS); otherwise the policies' smallest refresh_interval_seconds. */
  refreshMs?: number | null;
  log?: (line: string) => void;
};

export type MetricSync = ReturnType<typeof createMetricSync>;

function activePolicies(state: RoutingState) {
  return state.operations().flatMap((op) => {
    const active = state.policyFor(op);
    return active ? [{ operation: op, policy: active.policy }] : [];
  });
}

/** Buckets kept: the longest policy window (at least the default) plus two buckets' slack. */
function retainMinutesFor(state: RoutingState): number {
  const windows = activePolicies(state).map((p) => p.policy.metric_window_minutes);
  return Math.max(DEFAULT_WINDOW_MINUTES, ...windows) + 2 * (METRIC_BUCKET_SECONDS / 60);
}

/** The policies' smallest refresh_interval_seconds, in ms. */
function refreshPeriodFor(state: RoutingState): number {
  const intervals = activePolicies(state).map((p) => p.policy.refresh_interval_seconds);
  return (intervals.length > 0 ? Math.min(...intervals) : DEFAULT_REFRESH_SECONDS) * 1000;
}

function publishSnapshots(state: RoutingState, store: MetricStore, at: number): void {
  const catalogue = state.providers().map((p) => p.key);
  for (const { operation, policy } of activePolicies(state)) {
    const providers = policy.providers.length > 0 ? policy.providers : catalogue;
    const window = { now: at, windowMinutes: policy.metric_window_minutes, minSampleSize: policy.min_sample_size };
    for (const region of state.knownRegions(operation)) {
      state.setMetrics(operation, region, store.snapshots(operation, region, providers, window));
    }
  }
}

/**
 * Per-instance rolling buckets merged through Postgres. Outcomes land in a local router-core
 * store; every refresh this instance adds its deltas to metric_bucket (counts and histogram
 * arrays summed in SQL, so the row is the exact sum over instances), then reads the merged
 * window back and rebuilds its store from it. Deltas that could not be written (database down)
 * stay in `carry`, are counted in the local view, and go out with the next successful flush.
 */
export function createMetricSync(opts: TMetricSyncOptions) {
  const now = opts.now ?? Date.now;
  const { pool, state } = opts;
  let store: MetricStore = createMetricStore({ bucketSeconds: METRIC_BUCKET_SECONDS, retainMinutes: retainMinutesFor(state) });
  let carry: TMetricBucket[] = [];
  let lastRefreshAt: number | null = null;
  let lastError: string | null = null;
  let timer: NodeJS.Timeout | null = null;
  let running: Promise<void> | null = null;
  let stopped = false;

  const retainMinutes = () => retainMinutesFor(state);
  const refreshPeriodMs = () => opts.refreshMs || refreshPeriodFor(state);
  /** Snapshots for every known (operation, region) into the routing state, from the current store. */
  const publish = () => publishSnapshots(state, store, now());

  async function refreshOnce(): Promise<void> {
    carry = combine(carry, store.drainDeltas());
    lastError = null;
    try {
      await flushBuckets(pool, carry);
      carry = [];
    } catch (err) {
      lastError = `flush: ${(err as Error).message}`;
    }
    const since = now() - retainMinutes() * 60_000;
    let merged: TMetricBucket[];
    try {
      merged = await readBuckets(pool, since);
    } catch (err) {
      lastError = `read: ${(err as Error).message}`;
      publish();
      return;
    }
    // Events recorded while the queries ran are in neither `merged` nor Postgres yet.
    const late = store.drainDeltas();
    carry = combine(carry, late);
    const next = createMetricStore({ bucketSeconds: METRIC_BUCKET_SECONDS, retainMinutes: retainMinutes() });
    next.merge(merged);
    next.merge(carry);
    store = next;
    lastRefreshAt = now();
    publish();
  }

  function schedule(): void {
    if (stopped) return;
    timer = setTimeout(() => {
      void sync.refresh().finally(schedule);
    }, refreshPeriodMs());
    timer.unref();
  }

  const sync = {
    recordCall(key: TMetricKey, e: TProviderCallEvent): void {
      store.recordCall(key, e);
    },
    recordOutcome(key: TMetricKey, e: TBusinessOutcomeEvent): void {
      store.recordOutcome(key, e);
    },
    recordIncident(key: TMetricKey, at: number): void {
      store.recordIncident(key, at);
    },
    /** Flush deltas, read the merged window, publish snapshots; concurrent callers share one run. */
    refresh(): Promise<void> {
      running ??= refreshOnce().finally(() => (running = null));
      return running;
    },
    publish,
    start(): void {
      stopped = false;
      schedule();
    },
    async stop(): Promise<void> {
      stopped = true;
      if (timer) clearTimeout(timer);
      await running;
      // Last deltas out so a clean shutdown loses nothing.
      await sync.refresh().catch(() => {});
    },
    snapshot(key: TMetricKey, windowMinutes: number, minSampleSize: number) {
      return store.snapshot(key, { now: now(), windowMinutes, minSampleSize });
    },
    buckets: (): TMetricBucket[] => store.buckets(),
    get lastRefreshAt(): number | null {
      return lastRefreshAt;
    },
    get lastError(): string | null {
      return lastError;
    },
    /** Buckets with deltas not yet in Postgres. */
    get unflushed(): number {
      return carry.length;
    },
    get refreshMs(): number {
      return refreshPeriodMs();
    },
  };
  return sync;
}

function combine(a: readonly TMetricBucket[], b: readonly TMetricBucket[]): TMetricBucket[] {
  if (b.length === 0) return [...a];
  const byKey = new Map<string, TMetricBucket>();
  for (const x of [...a, ...b]) {
    const k = bucketKey(x);
    const existing = byKey.get(k);
    if (existing) mergeBucketInto(existing, x);
    else byKey.set(k, structuredClone(x));
  }
  return [...byKey.values()];
}

/**
 * Adds bucket deltas into metric_bucket in one statement. Rows go in key order so two instances
 * flushing the same buckets lock them in the same order and cannot deadlock.
 */
export async function flushBuckets(pool: pg.Pool | pg.PoolClient, buckets: readonly TMetricBucket[]): Promise<void> {
  if (buckets.length === 0) return;
  const rows = buckets.map((b) => ({
    p: b.provider,
    o: b.operation,
    r: b.region,
    s: b.start,
    w: b.widthMs,
    calls: b.calls,
    cf: b.callFailures,
    lat: b.latency.counts,
    comp: b.completions,
    fbp: b.failuresByStage.before_provider,
    fpc: b.failuresByStage.provider_call,
    fua: b.failuresByStage.user_action,
    fda: b.failuresByStage.downstream_app,
    fu: b.failuresByStage.unknown,
    inc: b.incidents,
    le: b.lastEventAt,
  }));
  await pool.query(
    `insert into metric_bucket (provider_key, operation_key, region, bucket_start, width_ms, calls, call_failures, latency_counts,
       completions, failures_before_provider, failures_provider_call, failures_user_action, failures_downstream_app,
       failures_unknown, incidents, last_event_at, updated_at)
     select x.p, x.o, x.r, to_timestamp(x.s / 1000.0), x.w, x.calls, x.cf,
       array(select e::bigint from jsonb_array_elements_text(x.lat) with ordinality as t(e, i) order by i),
       x.comp, x.fbp, x.fpc, x.fua, x.fda, x.fu, x.inc, x.le, now()
     from jsonb_to_recordset($1::jsonb) as x(p text, o text, r text, s bigint, w int, calls bigint, cf bigint, lat jsonb,
       comp bigint, fbp bigint, fpc bigint, fua bigint, fda bigint, fu bigint, inc bigint, le bigint)
     order by x.p, x.o, x.r, x.s
     on conflict (provider_key, operation_key, region, bucket_start) do update set
       calls = metric_bucket.calls + excluded.calls,
       call_failures = metric_bucket.call_failures + excluded.call_failures,
       latency_counts = array(
         select coalesce(a, 0) + coalesce(b, 0)
         from unnest(metric_bucket.latency_counts, excluded.latency_counts) with ordinality as t(a, b, i) order by i),
       completions = metric_bucket.completions + excluded.completions,
       failures_before_provider = metric_bucket.failures_before_provider + excluded.failures_before_provider,
       failures_provider_call = metric_bucket.failures_provider_call + excluded.failures_provider_call,
       failures_user_action = metric_bucket.failures_user_action + excluded.failures_user_action,
       failures_downstream_app = metric_bucket.failures_downstream_app + excluded.failures_downstream_app,
       failures_unknown = metric_bucket.failures_unknown + excluded.failures_unknown,
       incidents = metric_bucket.incidents + excluded.incidents,
       last_event_at = greatest(metric_bucket.last_event_at, excluded.last_event_at),
       updated_at = now()`,
    [JSON.stringify(rows)],
  );
}

/** Counters arrive as strings from pg and as bigints from Prisma's raw queries. */
type TCount = string | number | bigint;

/** A metric_bucket row as selected by readBuckets (and by the console's read model). */
export type TBucketRow = {
  provider_key: string;
  operation_key: string;
  region: string;
  start: TCount;
  width_ms: number;
  calls: TCount;
  call_failures: TCount;
  latency_counts: TCount[];
  completions: TCount;
  failures_before_provider: TCount;
  failures_provider_call: TCount;
  failures_user_action: TCount;
  failures_downstream_app: TCount;
  failures_unknown: TCount;
  incidents: TCount;
  last_event_at: TCount;
};

export function bucketFromRow(r: TBucketRow): TMetricBucket {
  const stages = {
    before_provider: Number(r.failures_before_provider),
    provider_call: Number(r.failures_provider_call),
    user_action: Number(r.failures_user_action),
    downstream_app: Number(r.failures_downstream_app),
    unknown: Number(r.failures_unknown),
  } satisfies Record<(typeof FAILURE_STAGES)[number], number>;
  return {
    provider: r.provider_key,
    operation: r.operation_key,
    region: r.region,
    start: Number(r.start),
    widthMs: r.width_ms,
    calls: Number(r.calls),
    callFailures: Number(r.call_failures),
    latency: { counts: r.latency_counts.map(Number) },
    completions: Number(r.completions),
    failuresByStage: stages,
    incidents: Number(r.incidents),
    lastEventAt: Number(r.last_event_at),
  };
}

/** The merged buckets starting after `since` (epoch ms), as router-core buckets. */
export async function readBuckets(pool: pg.Pool | pg.PoolClient, since: number): Promise<TMetricBucket[]> {
  const { rows } = await pool.query<TBucketRow>(
    `select provider_key, operation_key, region, round(extract(epoch from bucket_start) * 1000)::bigint as start, width_ms,
       calls, call_failures, latency_counts, completions, failures_before_provider, failures_provider_call,
       failures_user_action, failures_downstream_app, failures_unknown, incidents, last_event_at
     from metric_bucket where bucket_start >= to_timestamp($1 / 1000.0)`,
    [since - WIDTH_MS],
  );
  return rows.filter((r) => r.width_ms === WIDTH_MS && r.latency_counts.length === HISTOGRAM_BUCKETS).map(bucketFromRow);
}
