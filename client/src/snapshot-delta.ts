import type { TRoutingSnapshot } from "./types.js";

type TOperation = TRoutingSnapshot["operations"][string];

/** What changed since a version (GET /api/v1/routing/snapshot with `delta=1`); null removes. */
export type TSnapshotDelta = {
  providers?: TRoutingSnapshot["providers"];
  dbAvailable?: boolean;
  operations: Record<string, null | { head?: Omit<TOperation, "regions">; regions: Record<string, Record<string, unknown> | null> }>;
};

/**
 * The snapshot `delta` makes of `base`. Operations and regions the delta does not name keep their
 * objects, so router-core's caches on them (compiled policies, evaluations) survive the change.
 */
export function applySnapshotDelta(base: TRoutingSnapshot, delta: TSnapshotDelta): TRoutingSnapshot {
  const operations = { ...base.operations };
  for (const [op, change] of Object.entries(delta.operations)) {
    if (change === null) {
      delete operations[op];
      continue;
    }
    const before = operations[op];
    const head = change.head ?? (before ? { policyVersion: before.policyVersion, policy: before.policy, shadow: before.shadow } : null);
    if (!head) throw new Error(`snapshot delta: operation ${op} is new but carries no head`);
    const regions = { ...(before?.regions ?? {}) };
    for (const [region, state] of Object.entries(change.regions)) {
      if (state === null) delete regions[region];
      else regions[region] = state;
    }
    operations[op] = { ...head, regions };
  }
  return { providers: delta.providers ?? base.providers, operations, dbAvailable: delta.dbAvailable ?? base.dbAvailable };
}
