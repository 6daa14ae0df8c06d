import type { SwitchyardClient, TDecisionReport } from "./client.js";
import { SwitchyardError } from "./errors.js";
import { applySnapshotDelta } from "./snapshot-delta.js";
import type { TCandidate, TDecideRequest, TDecision, TDecisionRecord, TRoutingSnapshot } from "./types.js";
import { randomUUID, uuidV7At } from "./uuid.js";

/**
 * The decision engine LocalRouter runs: router-core's `decide` (pass it in, e.g.
 * `import { decide } from "<switchyard>/router-core"`). Injected so this package stays free of
 * dependencies; router-core is pure, so the same records come out as on the server.
 */
export type TLocalEngine = {
  decide(
    input: { operation: string; region: string; requestId: string; decisionId?: string; sequence?: number; attributes?: Readonly<Record<string, string>> },
    state: never,
    policy: never,
    clock: { now(): number },
    random: { next(): number },
    options?: { shadow?: never },
  ): unknown;
};

export type TLocalRouterOptions = {
  client: SwitchyardClient;
  engine: TLocalEngine;
  /** Long-poll wait per request, ms (default 25000, the server allows 30000). */
  waitMs?: number;
  /** Wait after a failed poll before the next, ms (default 1000). Decisions continue from the last snapshot meanwhile. */
  retryMs?: number;
  now?: () => number;
  random?: () => number;
  /** Each new snapshot version, when it arrived. */
  onSnapshot?: (version: string, receivedAt: number) => void;
  /**
   * The share of routine decisions whose full records are sent (default 0.01; 1 sends all). Every
   * decision is counted exactly regardless, and every non-routine one (stale, degraded, fallback,
   * override or pin, shadow disagreement) is always sent; each record carries its rate.
   */
  sampleRate?: number;
};

type TRecordLike = TDecisionRecord & {
  candidates: TCandidate[];
  stale?: boolean;
  override?: string;
  fallback?: unknown;
  shadow?: { agrees?: boolean; selected?: string | null } | null;
};

/** Worth a full record every time: anything but a normal pick on fresh state that a shadow policy (if any) agrees with. */
function isRoutine(r: TRecordLike, degraded: boolean): boolean {
  return (
    !degraded && r.stale !== true && r.selected !== null && (r.fallback ?? null) === null && (r.override ?? "none") === "none" && r.shadow?.agrees !== false
  );
}

/**
 * A region's router-core state, and the failover orders of the last candidates array router-core
 * returned for it (by selected provider).
 */
type TRegionSlot = { state: unknown; candidates: readonly TCandidate[] | null; orders: Map<string, string[]> };

/**
 * In-process decisions: subscribes to Switchyard's routing snapshot (long-poll, resumed by
 * version), decides with router-core on it, and ships each record to the decision log through
 * the client's bounded buffer (`record.local: true`), so the log, the console and the outcomes
 * stay complete. When Switchyard is unreachable it keeps deciding on the last snapshot.
 */
export class LocalRouter {
  private snap: TRoutingSnapshot | null = null;
  private ver: string | null = null;
  /** By operation, then region: two lookups of the caller's strings, no key built per decision. */
  private states = new Map<string, Map<string, TRegionSlot>>();
  private sequence = 0;
  private stopped = false;
  private readonly abort = new AbortController();
  private loop: Promise<void> | null = null;
  /** The last snapshot poll failed: decisions are made on a snapshot that may be behind. */
  private failing = false;
  private readonly sampleRate: number;
  private readonly now: () => number;
  private readonly random: () => number;

  // One clock and one random source for every decision (no closure per call): the clock answers
  // the time of the decision being made.
  private at = 0;
  private readonly clock = { now: () => this.at };
  private readonly rng: { next(): number };

  constructor(private readonly opts: TLocalRouterOptions) {
    this.now = opts.now ?? Date.now;
    this.random = opts.random ?? Math.random;
    this.rng = { next: this.random };
    const rate = opts.sampleRate ?? 0.01;
    if (!(rate >= 0 && rate <= 1)) throw new RangeError(`sampleRate must be between 0 and 1, got ${rate}`);
    this.sampleRate = rate;
  }

  get version(): string | null {
    return this.ver;
  }

  /** Takes the first snapshot (rejects when Switchyard does not answer, and keeps trying in the background), then follows changes. */
  async start(): Promise<void> {
    try {
      const first = await this.opts.client.snapshot(null, 0);
      if (first) this.apply(first.version, first.snapshot);
    } finally {
      // Also after a failed first fetch: the loop keeps asking, so a Switchyard that comes up later is followed.
      this.loop ??= this.follow();
    }
  }

  private apply(version: string, snapshot: TRoutingSnapshot): void {
    const prev = this.snap;
    this.snap = snapshot;
    this.ver = version;
    // router-core caches compiled policies and evaluations by object identity: a region whose
    // state, policy and catalogue a delta left alone keeps its state object, every other gets a new one.
    const kept = new Map<string, Map<string, TRegionSlot>>();
    if (prev && prev.providers === snapshot.providers) {
      for (const [op, regions] of this.states) {
        const a = prev.operations[op];
        const b = snapshot.operations[op];
        if (!a || !b || a.policy !== b.policy || a.shadow !== b.shadow) continue;
        const keptRegions = new Map<string, TRegionSlot>();
        for (const [region, slot] of regions) if (a.regions[region] === b.regions[region]) keptRegions.set(region, slot);
        if (keptRegions.size > 0) kept.set(op, keptRegions);
      }
    }
    this.states = kept;
    this.opts.onSnapshot?.(version, this.now());
  }

  private async follow(): Promise<void> {
    const waitMs = this.opts.waitMs ?? 25_000;
    while (!this.stopped) {
      try {
        const next = this.ver === null ? await this.opts.client.snapshot(null, 0) : await this.opts.client.snapshotChanges(this.ver, waitMs, this.abort.signal);
        this.failing = false;
        if (!next || this.stopped) continue;
        if ("snapshot" in next) this.apply(next.version, next.snapshot);
        else if (this.snap && next.base === this.ver) this.apply(next.version, applySnapshotDelta(this.snap, next.delta));
      } catch {
        if (this.stopped) return;
        this.failing = true;
        await new Promise((r) => setTimeout(r, this.opts.retryMs ?? 1_000).unref());
      }
    }
  }

  /** One decision, synchronously, from the current snapshot; its record goes to the decision log in the background. */
  decide(req: Omit<TDecideRequest, "timeoutMs">): TDecision {
    const snap = this.snap;
    if (!snap) throw new SwitchyardError(503, "no_snapshot", "no routing snapshot yet: await start()", null);
    const op = snap.operations[req.operation];
    const regionState = op?.regions[req.region];
    if (!op || !regionState)
      throw new SwitchyardError(422, "invalid", `unknown operation or region "${req.operation}"/"${req.region}" in the routing snapshot`, null);
    let regions = this.states.get(req.operation);
    if (!regions) this.states.set(req.operation, (regions = new Map()));
    let slot = regions.get(req.region);
    if (!slot) {
      slot = { state: { ...regionState, providers: snap.providers }, candidates: null, orders: new Map() };
      regions.set(req.region, slot);
    }
    const requestId = req.requestId ?? randomUUID();
    const at = this.now();
    const decisionId = uuidV7At(at);
    this.at = at;
    const record = this.opts.engine.decide(
      { operation: req.operation, region: req.region, requestId, decisionId, sequence: this.sequence++, attributes: req.attributes },
      slot.state as never,
      op.policy as never,
      this.clock,
      this.rng,
      op.shadow ? { shadow: op.shadow as never } : undefined,
    ) as TRecordLike;
    const order = this.orderOf(slot, record.candidates, record.selected);
    this.report(at, decisionId, requestId, order, record);
    return {
      decisionId,
      operation: req.operation,
      region: req.region,
      requestId,
      selected: record.selected,
      order,
      failStatic: false,
      source: "local",
      record,
    };
  }

  /** Counts the decision, and sends its record when it is non-routine or sampled. */
  private report(at: number, decisionId: string, requestId: string, order: string[], record: TRecordLike): void {
    const degraded = this.failing;
    const client = this.opts.client;
    const shadow = record.shadow ? (record.shadow.agrees ? "agree" : "disagree") : "none";
    client.countDecision(at, {
      operation: record.operation,
      region: record.region,
      selected: record.selected,
      reasonCode: record.reasonCode,
      policyVersion: record.policyVersion,
      shadow,
      stale: record.stale === true,
      degraded,
      source: "local",
      shadowPick: record.shadow?.selected ?? null,
    });
    const routine = isRoutine(record, degraded);
    const sampled = !routine || (this.sampleRate > 0 && this.random() < this.sampleRate);
    // One literal of one shape, absent fields undefined: a spread (`{ ...report, record }`, or a
    // conditional `...{ degraded }`) takes V8's slow path per decision, several times router-core's cost.
    const report: TDecisionReport = {
      decisionId,
      operation: record.operation,
      region: record.region,
      requestId,
      selected: record.selected,
      mode: "local",
      order,
      reasonCode: record.reasonCode,
      policyVersion: record.policyVersion,
      sampleRate: routine ? this.sampleRate : 1,
      countReported: true,
      degraded: degraded ? true : undefined,
      record: sampled ? (record as unknown as Record<string, unknown>) : undefined,
    };
    // Left out of the sample: kept without its record, sent only if an outcome is reported for it.
    if (sampled) client.recordDecision(report);
    else client.skipRecord(report);
  }

  /**
   * The failover order: selected first, then the other eligible candidates by score. router-core
   * hands consecutive decisions the same candidates array while it comes out the same, so the
   * order is computed once per array and selected provider. Only the region's last array is
   * remembered: on fresh metrics every decision gets a new one, and a WeakMap entry per decision
   * cost more than the sort.
   */
  private orderOf(slot: TRegionSlot, candidates: readonly TCandidate[], selected: string | null): string[] {
    if (slot.candidates !== candidates) {
      slot.candidates = candidates;
      slot.orders.clear();
    }
    const bySelected = slot.orders;
    const key = selected ?? "";
    let order = bySelected.get(key);
    if (!order) {
      const eligible = candidates
        .filter((c) => c.eligible)
        .sort((a, b) => (b.score ?? -Infinity) - (a.score ?? -Infinity))
        .map((c) => c.provider);
      order = selected === null ? eligible : [selected, ...eligible.filter((p) => p !== selected)];
      bySelected.set(key, order);
    }
    // A copy: the caller may change its decision's order.
    return order.slice();
  }

  /** Stops following (the pending long-poll is aborted). */
  async close(): Promise<void> {
    this.stopped = true;
    this.abort.abort();
    await this.loop;
  }
}
