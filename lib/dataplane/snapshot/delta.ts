import type { TRoutingSnapshot } from "./snapshot-types";

type TOperation = TRoutingSnapshot["operations"][string];
type TRegionState = TOperation["regions"][string];

/**
 * What changed from one snapshot version to the next. Each operation's head (policy version,
 * policy, shadow) and each region's state travel whole when they changed and not at all when
 * they did not, so a client keeps the objects (and router-core's caches on them) of everything
 * unchanged. `null` removes an operation or a region; `providers` is the whole list when it changed.
 */
export type TSnapshotDelta = {
  providers?: TRoutingSnapshot["providers"];
  dbAvailable?: boolean;
  operations: Record<string, null | { head?: Omit<TOperation, "regions">; regions: Record<string, TRegionState | null> }>;
};

/** A snapshot with the text of each part, made once per version so deltas compare strings. */
export type TSnapshotParts = {
  snapshot: TRoutingSnapshot;
  providers: string;
  heads: Map<string, string>;
  regions: Map<string, Map<string, string>>;
};

export function snapshotParts(snapshot: TRoutingSnapshot): TSnapshotParts {
  const heads = new Map<string, string>();
  const regions = new Map<string, Map<string, string>>();
  for (const [op, o] of Object.entries(snapshot.operations)) {
    heads.set(op, JSON.stringify([o.policyVersion, o.policy, o.shadow]));
    regions.set(op, new Map(Object.entries(o.regions).map(([r, s]) => [r, JSON.stringify(s)])));
  }
  return { snapshot, providers: JSON.stringify(snapshot.providers), heads, regions };
}

/** The delta that turns `base` into `next`, over the operations `allowed` lets the caller see. */
export function diffSnapshots(base: TSnapshotParts, next: TSnapshotParts, allowed: (operation: string) => boolean = () => true): TSnapshotDelta {
  const delta: TSnapshotDelta = { operations: {} };
  if (base.providers !== next.providers) delta.providers = next.snapshot.providers;
  if (base.snapshot.dbAvailable !== next.snapshot.dbAvailable) delta.dbAvailable = next.snapshot.dbAvailable;
  for (const op of base.heads.keys()) if (!next.heads.has(op) && allowed(op)) delta.operations[op] = null;
  for (const [op, head] of next.heads) {
    if (!allowed(op)) continue;
    const o = next.snapshot.operations[op]!;
    const before = base.regions.get(op);
    const regions: Record<string, TRegionState | null> = {};
    for (const [region, text] of next.regions.get(op)!) if (before?.get(region) !== text) regions[region] = o.regions[region]!;
    for (const region of before?.keys() ?? []) if (!(region in o.regions)) regions[region] = null;
    const headChanged = base.heads.get(op) !== head;
    if (!headChanged && Object.keys(regions).length === 0) continue;
    delta.operations[op] = headChanged ? { head: { policyVersion: o.policyVersion, policy: o.policy, shadow: o.shadow }, regions } : { regions };
  }
  return delta;
}
