import { SwitchyardError, SwitchyardUnavailableError } from "./errors.js";
import { callJson, type THttpOptions, type TRetryInfo } from "./http.js";
import type { TSnapshotDelta } from "./snapshot-delta.js";
import type {
  TCandidate,
  TClientStats,
  TDecideRequest,
  TDecision,
  TDecisionAnswer,
  TDecisionRecord,
  TOrderEntry,
  TExecuteAnswer,
  TExecuteRequest,
  TOutcome,
  TRoutingSnapshot,
} from "./types.js";
import { LocalDecisionCounts, type TLocalCountKey } from "./local-counts.js";
import { randomUUID, uuidV7At } from "./uuid.js";

export type TSwitchyardClientOptions = {
  /** e.g. http://127.0.0.1:3000 */
  baseUrl: string;
  /** A data-plane API key (decide scope; outcomes scope for reportOutcome). */
  apiKey?: string;
  /** Per attempt, ms (default 1000). execute's default is executeTimeoutMs. */
  timeoutMs?: number;
  /** execute's timeout per attempt, ms (default 35000: above execute's own default deadline of 30 s). */
  executeTimeoutMs?: number;
  /** Attempts for a call answered 429 or 503 (default 3). */
  maxAttempts?: number;
  /** Full-jitter backoff between attempts without Retry-After (default base 50 ms, cap 2 s). */
  backoff?: { baseMs: number; capMs: number };
  /** A Retry-After longer than this is not waited for (default 10 s). */
  maxRetryAfterMs?: number;
  /**
   * Fail-static order per operation (`OPERATION`) or per operation and region (`OPERATION@REGION`),
   * used when Switchyard does not answer and no decision for the pair has been seen yet.
   */
  staticOrder?: Record<string, string[]>;
  /** false: decide throws when Switchyard does not answer instead of answering fail-static (default true). */
  failStatic?: boolean;
  /** Bounded buffers and the background flush. */
  /** maxCountCells: per-minute count cells waiting to be reported at most (default 50000; past it a decision's count is dropped and counted). */
  /** maxUnrecorded: local decisions left out of the sample whose reports are kept for an outcome (default 100000, oldest first out). */
  buffer?: { maxDecisions?: number; maxOutcomes?: number; flushIntervalMs?: number; maxBatch?: number; maxCountCells?: number; maxUnrecorded?: number };
  /** Timeout of a background flush's calls, ms (default 10000: a batch of full records takes longer than a decide). */
  flushTimeoutMs?: number;
  /** Flush what is buffered when the process is about to exit (beforeExit; default true). Call close() from signal handlers. */
  flushOnExit?: boolean;
  /** Injection points (tests): fetch, randomness, waiting, clock. */
  fetch?: typeof fetch;
  random?: () => number;
  sleep?: (ms: number) => Promise<void>;
  now?: () => number;
  onRetry?: (info: TRetryInfo) => void;
  /** Background flush failures (Switchyard still down, a refused batch). */
  onError?: (err: Error) => void;
};

/** The routing the client last saw for (operation, region): what fail-static decides from. */
type TLastSeen = { weights: readonly TOrderEntry[]; order: string[]; policyVersion: string | null; at: number };

/** A decision made in this process (fail-static or local evaluation), waiting to be logged by Switchyard. */
export type TDecisionReport = {
  decisionId: string;
  operation: string;
  region: string;
  requestId: string;
  selected: string | null;
  mode: "fail_static" | "local";
  source?: "last_decision" | "static";
  order: string[];
  reason?: string;
  reasonCode?: string;
  policyVersion: string | null;
  /** local: router-core's record. */
  record?: Record<string, unknown>;
  /** local: decided on a snapshot the client could not refresh. */
  degraded?: boolean;
  /** The share of such decisions whose records are sent: 1 for a non-routine one, the sampling rate for a routine one. */
  sampleRate?: number;
  /** Counted in this client's count reports (countDecision), so Switchyard does not count the record again. */
  countReported?: boolean;
};

/** GET /api/v1/routing/snapshot's answer. */
export type TSnapshotAnswer = { version: string; at: number; snapshot: TRoutingSnapshot };
/** Its answer with `delta=1` when Switchyard still knows the version asked from: only what changed since `base`. */
export type TSnapshotDeltaAnswer = { version: string; at: number; base: string; delta: TSnapshotDelta };

type TBatchResult = { results: Array<{ decisionId: string; result: string }> };
type TOutcomeBatchResult = { results: Array<{ index: number; status: number }> };

const sleepFor = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/** Eligible candidates by score (ties by share), as Switchyard's failover order has them: a full record's order. */
function eligibleOrder(candidates: readonly TCandidate[], selected: string | null): TOrderEntry[] {
  const eligible = candidates.filter((c) => c.eligible).sort((a, b) => (b.score ?? -Infinity) - (a.score ?? -Infinity) || (b.share ?? 0) - (a.share ?? 0));
  const order = eligible.map((c) => ({ provider: c.provider, selectionProbability: c.selectionProbability }));
  return selected === null ? order : [...order.filter((p) => p.provider === selected), ...order.filter((p) => p.provider !== selected)];
}

/**
 * Switchyard's data plane from a service: decide, reportOutcome (buffered, flushed in the
 * background) and execute. When Switchyard is unreachable or slower than the timeout, decide
 * answers fail-static from the last decision it saw for the operation and region (picking by
 * that decision's selection probabilities) or from the static order, marks the decision, and
 * logs it with Switchyard once it answers again.
 */
export class SwitchyardClient {
  private readonly http: THttpOptions;
  private readonly failStaticOn: boolean;
  private readonly staticOrder: Record<string, string[]>;
  private readonly maxDecisions: number;
  private readonly maxOutcomes: number;
  private readonly maxBatch: number;
  private readonly now: () => number;
  private readonly onError: (err: Error) => void;
  private readonly last = new Map<string, TLastSeen>();
  private readonly reports: TDecisionReport[] = [];
  /** Fail-static decision ids not yet logged: their outcomes wait for them. */
  private readonly unlogged = new Set<string>();
  private readonly outcomes: TOutcome[] = [];
  private readonly counters: Omit<TClientStats, "counts"> = {
    decisions: { switchyard: 0, failStatic: 0 },
    failStatic: { made: 0, reported: 0, refused: 0, dropped: 0, pending: 0 },
    local: { made: 0, reported: 0, refused: 0, dropped: 0, pending: 0, sampledOut: 0 },
    outcomes: { queued: 0, sent: 0, refused: 0, dropped: 0, pending: 0 },
    retries: 0,
  };
  private readonly counts: LocalDecisionCounts;
  /** Reports of local decisions left out of the sample, by id (skipRecord). */
  private readonly unrecorded = new Map<string, TDecisionReport>();
  /**
   * Their ids in the order skipped, from `unrecordedHead` (ids an outcome took are skipped when
   * reached): the oldest is found by position, not as the map's first key, since a Map's iterator
   * walks past every entry deleted since the table was last rebuilt (tens of thousands here).
   */
  private unrecordedIds: string[] = [];
  private unrecordedHead = 0;
  private readonly maxUnrecorded: number;
  private flushing: Promise<void> | null = null;
  private timer: ReturnType<typeof setInterval> | null = null;
  private readonly exitHook: (() => void) | null = null;
  private closed = false;

  constructor(opts: TSwitchyardClientOptions) {
    const onRetry = opts.onRetry;
    this.http = {
      baseUrl: opts.baseUrl.replace(/\/+$/, ""),
      apiKey: opts.apiKey,
      timeoutMs: opts.timeoutMs ?? 1_000,
      maxAttempts: opts.maxAttempts ?? 3,
      backoff: opts.backoff ?? { baseMs: 50, capMs: 2_000 },
      maxRetryAfterMs: opts.maxRetryAfterMs ?? 10_000,
      fetch: opts.fetch ?? globalThis.fetch.bind(globalThis),
      random: opts.random ?? Math.random,
      sleep: opts.sleep ?? sleepFor,
      onRetry: (info) => {
        this.counters.retries++;
        onRetry?.(info);
      },
    };
    this.executeTimeoutMs = opts.executeTimeoutMs ?? 35_000;
    this.flushTimeoutMs = opts.flushTimeoutMs ?? 10_000;
    this.failStaticOn = opts.failStatic !== false;
    this.staticOrder = opts.staticOrder ?? {};
    this.maxDecisions = opts.buffer?.maxDecisions ?? 10_000;
    this.maxOutcomes = opts.buffer?.maxOutcomes ?? 10_000;
    this.counts = new LocalDecisionCounts(opts.buffer?.maxCountCells ?? 50_000);
    this.maxUnrecorded = opts.buffer?.maxUnrecorded ?? 100_000;
    this.maxBatch = Math.min(1_000, opts.buffer?.maxBatch ?? 500);
    this.now = opts.now ?? Date.now;
    this.onError = opts.onError ?? (() => {});
    const interval = opts.buffer?.flushIntervalMs ?? 1_000;
    if (interval > 0) {
      this.timer = setInterval(() => void this.flush().catch(() => {}), interval);
      this.timer.unref();
    }
    if (opts.flushOnExit !== false && typeof process !== "undefined") {
      // beforeExit fires when the event loop is empty; the flush schedules work, after which it
      // fires again. A failed exit flush is not tried again, or an unreachable Switchyard would
      // keep the process from ever exiting.
      let exitFlushFailed = false;
      this.exitHook = () => {
        if (exitFlushFailed || this.pendingCount() === 0 || this.flushing) return;
        void this.flush().catch(() => {
          exitFlushFailed = true;
        });
      };
      process.on("beforeExit", this.exitHook);
    }
  }

  private readonly executeTimeoutMs: number;
  private readonly flushTimeoutMs: number;

  /** Which provider to call. Fail-static (marked `failStatic: true`) when Switchyard does not answer in time. */
  async decide(req: TDecideRequest): Promise<TDecision> {
    const requestId = req.requestId ?? randomUUID();
    const key = `${req.operation}@${req.region}`;
    try {
      const full = req.explain === "full";
      const { body } = await callJson<TDecisionAnswer | TDecisionRecord>(
        this.http,
        "POST",
        "/api/v1/decide",
        {
          operation: req.operation,
          region: req.region,
          requestId,
          ...(req.attributes ? { attributes: req.attributes } : {}),
          ...(full ? { explain: "full" } : {}),
        },
        { timeoutMs: req.timeoutMs },
      );
      // The compact answer carries the failover order; a full record, its candidates to derive it from.
      const weights =
        "order" in body && Array.isArray(body.order)
          ? body.order
          : eligibleOrder(Array.isArray((body as TDecisionRecord).candidates) ? (body as TDecisionRecord).candidates : [], body.selected);
      const order = weights.map((w) => w.provider);
      // A decision whose candidates were all ineligible says nothing about whom to call: keep the previous.
      if (order.length > 0) this.last.set(key, { weights, order, policyVersion: body.policyVersion ?? null, at: this.now() });
      this.counters.decisions.switchyard++;
      return {
        decisionId: body.decisionId,
        operation: req.operation,
        region: req.region,
        requestId,
        selected: body.selected,
        order,
        failStatic: false,
        source: "switchyard",
        ...(full ? { record: body as TDecisionRecord } : {}),
      };
    } catch (err) {
      if (!(err instanceof SwitchyardUnavailableError) || !this.failStaticOn) throw err;
      const d = this.failStaticDecision(req, requestId, key, err);
      if (!d) throw err;
      return d;
    }
  }

  private failStaticDecision(req: TDecideRequest, requestId: string, key: string, cause: SwitchyardUnavailableError): TDecision | null {
    const seen = this.last.get(key);
    let selected: string | null;
    let order: string[];
    let source: "last_decision" | "static";
    if (seen) {
      selected = this.pick(seen);
      order = [selected, ...seen.order.filter((p) => p !== selected)];
      source = "last_decision";
    } else {
      const fixed = this.staticOrder[key] ?? this.staticOrder[req.operation];
      if (!fixed || fixed.length === 0) return null;
      selected = fixed[0]!;
      order = [...fixed];
      source = "static";
    }
    const at = this.now();
    const decisionId = uuidV7At(at);
    const reason = `${cause.reason}: ${cause.message}`;
    this.counters.decisions.failStatic++;
    const policyVersion = seen?.policyVersion ?? null;
    // Switchyard stores a fail-static decision as stale and degraded (made without current metrics).
    this.countDecision(at, {
      operation: req.operation,
      region: req.region,
      selected,
      reasonCode: "fail_static",
      policyVersion,
      shadow: "none",
      stale: true,
      degraded: true,
      source: "fail_static",
      shadowPick: null,
    });
    this.recordDecision({
      decisionId,
      operation: req.operation,
      region: req.region,
      requestId,
      selected,
      mode: "fail_static",
      source,
      order,
      reason,
      policyVersion,
      sampleRate: 1,
      countReported: true,
    });
    return { decisionId, operation: req.operation, region: req.region, requestId, selected, order, failStatic: true, source, reason };
  }

  /**
   * Counts a decision made in this process (LocalRouter's, fail-static ones) for Switchyard's exact
   * per-minute counts, sent with the next flush whether or not its record is sent.
   */
  countDecision(at: number, key: Omit<TLocalCountKey, "minute">): void {
    this.counts.add(at, key);
  }

  /**
   * A local decision whose record is left out of the sample (`local.sampledOut`). Its report,
   * without the record, is kept (the last `buffer.maxUnrecorded`): an outcome reported for it sends
   * the report first, so Switchyard knows the decision the outcome is for.
   */
  skipRecord(report: TDecisionReport): void {
    this.counters.local.made++;
    this.counters.local.sampledOut++;
    this.unrecorded.set(report.decisionId, report);
    this.unrecordedIds.push(report.decisionId);
    // Oldest first out; an id an outcome already took deletes nothing and the next is tried.
    while (this.unrecorded.size > this.maxUnrecorded) this.unrecorded.delete(this.unrecordedIds[this.unrecordedHead++]!);
    // Bounded: the ids passed are cut off, and those outcomes took are dropped once they pile up.
    if (this.unrecordedHead > this.maxUnrecorded) {
      this.unrecordedIds.splice(0, this.unrecordedHead);
      this.unrecordedHead = 0;
    } else if (this.unrecordedIds.length - this.unrecordedHead > 2 * this.maxUnrecorded + 16) {
      this.unrecordedIds = this.unrecordedIds.slice(this.unrecordedHead).filter((id) => this.unrecorded.has(id));
      this.unrecordedHead = 0;
    }
  }

  /**
   * Buffers a decision made in this process for Switchyard's decision log (LocalRouter uses it);
   * past the bounded buffer it is dropped and counted.
   */
  recordDecision(report: TDecisionReport): void {
    const c = report.mode === "local" ? this.counters.local : this.counters.failStatic;
    c.made++;
    if (this.reports.length >= this.maxDecisions) {
      c.dropped++;
      return;
    }
    this.reports.push(report);
    this.unlogged.add(report.decisionId);
  }

  /**
   * The routing snapshot for in-process decisions: at once without `since`, else long-polls up to
   * `waitMs` for a version other than `since`; null when it did not change.
   */
  async snapshot(since: string | null, waitMs: number, signal?: AbortSignal): Promise<TSnapshotAnswer | null> {
    return this.getSnapshot<TSnapshotAnswer>(since === null ? "" : `?since=${encodeURIComponent(since)}&waitMs=${waitMs}`, waitMs, signal);
  }

  /** As `snapshot`, but answered as a delta from `since` when Switchyard still has that version (else whole). */
  async snapshotChanges(since: string, waitMs: number, signal?: AbortSignal): Promise<TSnapshotAnswer | TSnapshotDeltaAnswer | null> {
    return this.getSnapshot(`?since=${encodeURIComponent(since)}&waitMs=${waitMs}&delta=1`, waitMs, signal);
  }

  private async getSnapshot<T>(query: string, waitMs: number, signal?: AbortSignal): Promise<T | null> {
    try {
      return (await callJson<T>(this.http, "GET", `/api/v1/routing/snapshot${query}`, undefined, { timeoutMs: waitMs + this.http.timeoutMs, signal })).body;
    } catch (err) {
      if (err instanceof SwitchyardError && err.status === 304) return null;
      throw err;
    }
  }

  /** A provider by the last decision's selection probabilities (its planned shares), else its order's first. */
  private pick(seen: TLastSeen): string {
    const weighted = seen.weights.filter((c) => c.selectionProbability > 0);
    const total = weighted.reduce((s, c) => s + c.selectionProbability, 0);
    if (total <= 0) return seen.order[0]!;
    let r = this.http.random() * total;
    for (const c of weighted) {
      r -= c.selectionProbability;
      if (r < 0) return c.provider;
    }
    return weighted[weighted.length - 1]!.provider;
  }

  /** Buffers an outcome; sent in the background in batches. Dropped (and counted) when the buffer is full. */
  reportOutcome(outcome: TOutcome): void {
    if (this.outcomes.length >= this.maxOutcomes) {
      this.counters.outcomes.dropped++;
      return;
    }
    const unrecorded = this.unrecorded.get(outcome.decisionId);
    if (unrecorded) {
      // Out of the sample, now sent (without its full record) so the outcome has its decision.
      this.unrecorded.delete(outcome.decisionId);
      this.counters.local.made--;
      this.counters.local.sampledOut--;
      this.recordDecision(unrecorded);
    }
    this.counters.outcomes.queued++;
    this.outcomes.push(outcome);
  }

  /** Execute mode: Switchyard decides, calls the provider, fails over. Always sends an Idempotency-Key, so its retries are safe. */
  async execute(operation: string, req: TExecuteRequest): Promise<TExecuteAnswer> {
    const { idempotencyKey, timeoutMs, ...body } = req;
    const { body: answer } = await callJson<TExecuteAnswer>(this.http, "POST", `/api/v1/execute/${encodeURIComponent(operation)}`, body, {
      idempotencyKey: idempotencyKey ?? randomUUID(),
      timeoutMs: timeoutMs ?? this.executeTimeoutMs,
    });
    return answer;
  }

  /**
   * Sends what is buffered: fail-static decisions first (to /api/v1/decisions/batch), then the
   * outcomes whose decisions Switchyard knows. Stops at the first batch Switchyard does not take
   * (it stays buffered for the next flush). One flush at a time.
   */
  flush(): Promise<void> {
    if (this.flushing) return this.flushing;
    this.flushing = this.flushOnce().finally(() => {
      this.flushing = null;
    });
    return this.flushing;
  }

  /** Sends the count report waiting, if any: one at a time, the same one again until Switchyard takes or refuses it. */
  private async flushCounts(): Promise<void> {
    for (let report = this.counts.next(); report; report = this.counts.next()) {
      try {
        await callJson(this.http, "POST", "/api/v1/decisions/counts", report, { timeoutMs: this.flushTimeoutMs });
        this.counts.settle(true);
      } catch (err) {
        // Refused (invalid for this key, or a server without the endpoint): sending it again would be refused again.
        if (err instanceof SwitchyardError && err.status >= 400 && err.status < 500 && err.status !== 408 && err.status !== 429) this.counts.settle(false);
        else throw err;
      }
    }
  }

  private async flushOnce(): Promise<void> {
    try {
      await this.flushCounts();
      let limit = this.maxBatch;
      while (this.reports.length > 0) {
        const batch = this.nextBatch(limit);
        let results: TBatchResult["results"];
        try {
          results = (await callJson<TBatchResult>(this.http, "POST", "/api/v1/decisions/batch", { decisions: batch }, { timeoutMs: this.flushTimeoutMs })).body
            .results;
        } catch (err) {
          if (err instanceof SwitchyardError && err.status === 413 && batch.length > 1) {
            // Over the server's body bounds: the same decisions in smaller batches.
            limit = Math.max(1, Math.floor(batch.length / 2));
            continue;
          }
          if (err instanceof SwitchyardError && err.status >= 400 && err.status < 500 && err.status !== 408) {
            // Refused whole (e.g. a server without the endpoint): kept, it would be refused forever.
            results = batch.map((d) => ({ decisionId: d.decisionId, result: "refused" }));
          } else throw err;
        }
        const byId = new Map(results.map((r) => [r.decisionId, r.result]));
        for (const d of batch) {
          const c = d.mode === "local" ? this.counters.local : this.counters.failStatic;
          if (byId.get(d.decisionId) === "refused") c.refused++;
          else c.reported++;
          this.unlogged.delete(d.decisionId);
        }
        this.reports.splice(0, batch.length);
      }
      while (this.outcomes.length > 0) {
        const ready: TOutcome[] = [];
        for (const o of this.outcomes) {
          if (ready.length >= this.maxBatch) break;
          if (!this.unlogged.has(o.decisionId)) ready.push(o);
        }
        if (ready.length === 0) break;
        const { body } = await callJson<TOutcomeBatchResult>(this.http, "POST", "/api/v1/outcomes", { outcomes: ready }, { timeoutMs: this.flushTimeoutMs });
        for (const r of body.results) {
          if (r.status >= 400) this.counters.outcomes.refused++;
          else this.counters.outcomes.sent++;
        }
        const sent = new Set(ready);
        for (let i = this.outcomes.length - 1; i >= 0; i--) if (sent.has(this.outcomes[i]!)) this.outcomes.splice(i, 1);
      }
    } catch (err) {
      this.onError(err as Error);
      throw err;
    }
  }

  /**
   * The next reports to send: at most `limit`, and about 20,000 JSON keys and array elements,
   * under the data plane's bound of 25,000 per body (a full local record has a few hundred).
   */
  private nextBatch(limit: number): TDecisionReport[] {
    let members = 0;
    let n = 0;
    while (n < this.reports.length && n < limit) {
      members += this.reports[n]!.record ? 400 : 20;
      if (n > 0 && members > 20_000) break;
      n++;
    }
    return this.reports.slice(0, n);
  }

  private pendingCount(): number {
    return this.reports.length + this.outcomes.length + this.counts.pending;
  }

  stats(): TClientStats {
    return {
      decisions: { ...this.counters.decisions },
      failStatic: { ...this.counters.failStatic, pending: this.reports.filter((r) => r.mode === "fail_static").length },
      local: { ...this.counters.local, pending: this.reports.filter((r) => r.mode === "local").length },
      counts: this.counts.stats(),
      outcomes: { ...this.counters.outcomes, pending: this.outcomes.length },
      retries: this.counters.retries,
    };
  }

  /** Stops the background flush and flushes once more; what Switchyard does not take stays counted as pending. */
  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    if (this.timer) clearInterval(this.timer);
    if (this.exitHook) process.off("beforeExit", this.exitHook);
    await this.flush().catch(() => {});
  }
}
