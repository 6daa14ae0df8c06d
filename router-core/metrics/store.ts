import type { TMetricSnapshot } from "../types";
import {
  bucketKey,
  bucketStart,
  cloneBucket,
  createBucket,
  mergeBucketInto,
  recordBusinessOutcome,
  recordIncident,
  recordProviderCall,
  restoreBucket,
  type TBusinessOutcomeEvent,
  type TMetricBucket,
  type TProviderCallEvent,
} from "./bucket";
import { inWindow, snapshotFor, type TWindowOptions } from "./window";

export type TMetricKey = { provider: string; operation: string; region: string };

export type TMetricStoreOptions = {
  /** Bucket width; 60 s matches the paper's per-minute traffic-shift cadence. */
  bucketSeconds?: number;
  /** Buckets older than this are dropped on prune(); must cover the longest metric window. */
  retainMinutes?: number;
};

export type TMetricStoreJSON = { bucketSeconds: number; retainMinutes: number; buckets: TMetricBucket[] };

export interface MetricStore {
  recordCall(key: TMetricKey, e: TProviderCallEvent): void;
  recordOutcome(key: TMetricKey, e: TBusinessOutcomeEvent): void;
  recordIncident(key: TMetricKey, at: number): void;
  /** Adds buckets from another instance (or Postgres); merging is exact and order-independent. */
  merge(buckets: readonly TMetricBucket[]): void;
  /** Local changes since the last drain, as buckets to add to the shared store. */
  drainDeltas(): TMetricBucket[];
  prune(now: number): void;
  snapshot(key: TMetricKey, opts: TWindowOptions): TMetricSnapshot;
  /** Snapshots for every provider of one (operation, region): the shape decide() takes. */
  snapshots(operation: string, region: string, providers: readonly string[], opts: TWindowOptions): Record<string, TMetricSnapshot>;
  buckets(): TMetricBucket[];
  toJSON(): TMetricStoreJSON;
}

/** Per-instance metric buckets: the totals this instance knows, plus the deltas it has not flushed. */
export function createMetricStore(options: TMetricStoreOptions = {}): MetricStore {
  const bucketSeconds = options.bucketSeconds ?? 60;
  const retainMinutes = options.retainMinutes ?? 60;
  if (!(bucketSeconds > 0)) throw new RangeError(`bucketSeconds must be > 0, got ${bucketSeconds}`);
  if (!(retainMinutes > 0)) throw new RangeError(`retainMinutes must be > 0, got ${retainMinutes}`);
  const widthMs = bucketSeconds * 1000;
  const totals = new Map<string, TMetricBucket>();
  let deltas = new Map<string, TMetricBucket>();

  const touch = (key: TMetricKey, at: number, record: (b: TMetricBucket) => void) => {
    const k = bucketKey({ ...key, start: bucketStart(at, widthMs) });
    for (const map of [totals, deltas]) {
      let b = map.get(k);
      if (b === undefined) {
        b = createBucket(key.provider, key.operation, key.region, at, widthMs);
        map.set(k, b);
      }
      record(b);
    }
  };

  const store: MetricStore = {
    recordCall: (key, e) => touch(key, e.at, (b) => recordProviderCall(b, e)),
    recordOutcome: (key, e) => touch(key, e.at, (b) => recordBusinessOutcome(b, e)),
    recordIncident: (key, at) => touch(key, at, (b) => recordIncident(b, at)),
    merge(buckets) {
      for (const b of buckets) {
        const k = bucketKey(b);
        const existing = totals.get(k);
        if (existing === undefined) totals.set(k, cloneBucket(b));
        else mergeBucketInto(existing, b);
      }
    },
    drainDeltas() {
      const out = [...deltas.values()];
      deltas = new Map();
      return out;
    },
    prune(now) {
      for (const [k, b] of totals) if (!inWindow(b, now, retainMinutes)) totals.delete(k);
    },
    snapshot: (key, opts) => snapshotFor([...totals.values()], key.provider, key.operation, key.region, opts),
    snapshots(operation, region, providers, opts) {
      const all = [...totals.values()];
      const out: Record<string, TMetricSnapshot> = {};
      for (const p of providers) out[p] = snapshotFor(all, p, operation, region, opts);
      return out;
    },
    buckets: () => [...totals.values()].map(cloneBucket),
    toJSON: () => ({ bucketSeconds, retainMinutes, buckets: store.buckets() }),
  };
  return store;
}

/** Rebuilds a store from toJSON() output; unflushed deltas are not part of the state. */
export function restoreMetricStore(json: TMetricStoreJSON): MetricStore {
  const store = createMetricStore({ bucketSeconds: json.bucketSeconds, retainMinutes: json.retainMinutes });
  store.merge(json.buckets.map(restoreBucket));
  return store;
}
