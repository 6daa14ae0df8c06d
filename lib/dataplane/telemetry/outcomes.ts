import type pg from "pg";
import { uuidV7At, uuidV7Time } from "../decision-id";
import { errorBody, fromZod, ContractError } from "../../edge";
import { invalid } from "../../http";
import { SpoolFullError } from "../spool";
import type { RoutingState } from "../routing-state";
import type { BreakerBank } from "./breakers";
import { countOutcome } from "../metrics/counters";
import { createGroupCommit, createGroupLookup } from "./group-commit";
import type { MetricSync } from "./metric-sync";
import { MAX_OUTCOME_BATCH, ZOutcome, ZOutcomeBatch, type TOutcome, type TExecutedCall, type TOutcomeBatchResponse, type TOutcomeItemResult } from "./schemas";

/**
 * What an outcome needs from its decision: where it was routed, for metrics and breakers; which
 * providers it offered (selected first, then the failover order; null for a row logged before
 * that was recorded: only `selected`); and what is stored for it already (absent: nothing known).
 */
export type TDecisionRef = {
  operation: string;
  region: string;
  selected: string | null;
  offered?: readonly string[] | null;
  stored?: { calls: Readonly<Record<string, number>>; business: number };
};

/**
 * At most this many provider-call outcomes per decision and provider (an attempt and its
 * retries, each reported on its own), and this many business outcomes per decision, are taken
 * from callers: enough for any honest report, and a key that means to open a breaker needs a
 * decision (rate and quota spent, logged under its key id) for every few failures it reports.
 */
export const MAX_CALL_OUTCOMES_PER_ATTEMPT = 3;
export const MAX_BUSINESS_OUTCOMES_PER_DECISION = 3;

/** provider_call_outcome.detail is varchar(500); a longer cause is cut rather than failing the group's insert. */
const MAX_CALL_DETAIL = 500;

/** Who reports: the key id stored with each outcome, and the operations it may touch (null: every one). */
export type TReporter = { apiKeyId: string | null; operations: readonly string[] | null };
/** Known decisions among `ids`; throws when the decision log cannot be read (database down). */
export type TDecisionLookup = (ids: readonly string[]) => Promise<Map<string, TDecisionRef>>;

/**
 * An accepted outcome on its way to Postgres. `decision` is null when it was accepted during an
 * outage before its decision could be looked up; `applied` says whether metrics and breakers
 * already saw it, so a replay does not count it twice.
 */
export type TPendingOutcome = {
  id: string;
  outcome: TOutcome;
  receivedAt: number;
  decision: TDecisionRef | null;
  applied: boolean;
  /** The reporter, kept for a replay that matches the outcome to its decision (absent in lines spooled before it was). */
  reporter?: TReporter;
  /** Execute mode's own failed calls: the transport's cause, stored for the console only (provider_call_outcome.detail). */
  detail?: string;
};

export type TOutcomeSpool = { append(records: TPendingOutcome[]): Promise<void> };

export type TOutcomeServiceOptions = {
  pool: pg.Pool;
  state: RoutingState;
  lookup: TDecisionLookup;
  metrics: MetricSync;
  breakers: BreakerBank;
  /** ClickHouse mode: where outcomes are stored (default: Postgres's outcome tables). */
  store?: TOutcomeStore | null;
  /** Where outcomes go while Postgres is unreachable; without one the request fails with 503. */
  spool?: TOutcomeSpool | null;
  /**
   * Of decision ids not in the table, those whose decision may still be in a spool (this
   * instance's or another's, decision-log/backlog.ts): their outcomes are spooled to wait for it
   * (202) instead of refused (404). Needs `spool`.
   */
  mayBeSpooled?: (ids: string[]) => Promise<ReadonlySet<string>>;
  now?: () => number;
  /**
   * How long a spooled outcome whose decision is not in the table yet stays spooled before it is
   * dropped (default UNMATCHED_OUTCOME_GRACE_MS).
   */
  unmatchedGraceMs?: number;
};

/**
 * During an outage a decision and its outcome are often spooled by different instances (the
 * outcome reaches whichever instance the load balancer picks), and the instances replay their
 * spools independently: an outcome replayed before its decision must wait for it, not be dropped.
 * Long enough for the decision's instance to notice Postgres is back, or to be restarted.
 */
export const UNMATCHED_OUTCOME_GRACE_MS = 15 * 60_000;

export type TOutcomeResponse = { status: number; body: unknown };

/**
 * "Database unreachable" as opposed to a bad statement: errors Postgres did not send itself
 * (refused, reset, timeouts, "Connection terminated" carry no severity), connection exceptions
 * (08), shutdowns (57P) and too many connections. Only these are spooled; anything else is a bug.
 */
export function isConnectionError(err: unknown): boolean {
  const e = err as { code?: unknown; severity?: unknown } | null;
  if (typeof e?.severity !== "string") return true;
  const code = typeof e.code === "string" ? e.code : "";
  return code.startsWith("08") || code.startsWith("57P") || code === "53300";
}

/**
 * Provider-attributable failure: a 4xx is the caller's request being wrong, so it neither counts
 * against the provider's error rate nor trips its breaker. Nor does `protocol` (a 2xx in the wrong
 * content type): it is most often Switchyard's own configuration (a base URL that is not the API,
 * an endpoint that does not stream), and must not open a breaker that every other request needs.
 */
function callFailed(o: Extract<TOutcome, { type: "provider_call" }>): boolean {
  return o.status === "failure" && o.errorClass !== "http_4xx" && o.errorClass !== "protocol";
}

/**
 * How long execute mode's outcome reports may wait for company in the outcome writer. Metrics and
 * breakers see them that much later, against refresh intervals of seconds.
 */
export const REPORT_LAZY_MS = 20;

type TValid = { index: number; outcome: TOutcome; detail?: string };

/** Outcomes this instance accepted per decision (and provider), so concurrent batches cannot each take the whole bound. */
const ACCEPTED_MEMORY = 100_000;

/** What the service's steps share: its options and the group-commit writer and lookup it built. */
type TOutcomeContext = {
  opts: TOutcomeServiceOptions;
  now: () => number;
  writer: ReturnType<typeof createGroupCommit<TPendingOutcome>>;
  lookup: ReturnType<typeof createGroupLookup<TDecisionRef>>;
  /** Accepted outcomes by "decision id" (business) or "decision id, provider" (calls), oldest first. */
  accepted: Map<string, number>;
};

/** Feeds an accepted outcome to the rolling metrics and the breakers, once. */
function applyOutcome(opts: TOutcomeServiceOptions, p: TPendingOutcome): void {
  const d = p.decision;
  if (!d || p.applied) return;
  p.applied = true;
  const o = p.outcome;
  if (o.type === "provider_call") {
    const failed = callFailed(o);
    const key = { provider: o.provider, operation: d.operation, region: d.region };
    opts.metrics.recordCall(key, { at: p.receivedAt, latencyMs: o.latencyMs, ok: !failed });
    const detail = o.errorClass ? `${o.errorClass}${o.httpStatus ? ` ${o.httpStatus}` : ""}` : "";
    // When the call started, for the breaker's straggler rule: not before its decision (a UUIDv7
    // carries the decision's time), so a probe routed by a half-open breaker always counts even
    // when the reported latency is longer than the time since (a simulated or queued latency).
    const decidedAt = uuidV7Time(o.decisionId);
    const startedAt = decidedAt === null ? p.receivedAt - o.latencyMs : Math.max(decidedAt, p.receivedAt - o.latencyMs);
    opts.breakers.record(d.operation, o.provider, d.region, failed, detail, startedAt);
  } else {
    const provider = o.provider ?? d.selected;
    if (provider === null) return;
    const key = { provider, operation: d.operation, region: d.region };
    opts.metrics.recordOutcome(key, { at: p.receivedAt, completed: o.completed, ...(o.failureStage ? { failureStage: o.failureStage } : {}) });
  }
}

/** Into the configured store: Postgres's outcome tables, or ClickHouse mode's. */
const storeInsert = (opts: TOutcomeServiceOptions, items: readonly TPendingOutcome[]): Promise<void> =>
  opts.store ? opts.store.insert(items) : insertOutcomes(opts.pool, items);

async function spoolOutcomes(opts: TOutcomeServiceOptions, items: TPendingOutcome[], cause: unknown): Promise<void> {
  if (!opts.spool) throw new ContractError("database_unavailable", `outcomes cannot be stored: ${(cause as Error).message}`);
  try {
    await opts.spool.append(items);
  } catch (err) {
    if (err instanceof SpoolFullError) throw new ContractError("spool_full", `Postgres is unreachable and ${err.message}`);
    throw err;
  }
}

/** Validates raw items: the valid ones with their input index, a 400 result in `results` for the others. */
function validateOutcomes(state: RoutingState, raw: readonly unknown[], results: TOutcomeItemResult[]): TValid[] {
  const valid: TValid[] = [];
  const catalogue = new Set(state.providers().map((p) => p.key));
  raw.forEach((item, index) => {
    const parsed = ZOutcome.safeParse(item);
    const decisionId = typeof (item as { decisionId?: unknown } | null)?.decisionId === "string" ? (item as { decisionId: string }).decisionId : null;
    if (!parsed.success) {
      results[index] = { index, status: 400, result: "invalid", decisionId, error: fromZod(parsed.error).toBody().error };
      return;
    }
    const provider = parsed.data.provider;
    if (provider !== undefined && catalogue.size > 0 && !catalogue.has(provider)) {
      const message = `unknown provider "${provider}"; known providers: ${[...catalogue].sort().join(", ")}`;
      results[index] = { index, status: 422, result: "invalid", decisionId, error: invalid([{ path: "provider", message }], message).toBody().error };
      return;
    }
    valid.push({ index, outcome: parsed.data });
  });
  return valid;
}

/** Accepted items' results and counters. */
function accept(results: TOutcomeItemResult[], result: "recorded" | "spooled", items: readonly TValid[]): void {
  for (const { index, outcome } of items) {
    results[index] = { index, status: result === "recorded" ? 201 : 202, result, decisionId: outcome.decisionId };
    countOutcome(outcome.type, outcome.provider ?? "none", result);
  }
}

/** Execute's transport cause travels with its outcome only when there is one. */
const withDetail = (detail: string | undefined): { detail?: string } => (detail ? { detail } : {});

/** Held for a replay that matches them to their decision. */
const unmatched = (items: readonly TValid[], receivedAt: number, reporter: TReporter): TPendingOutcome[] =>
  items.map((v) => ({ id: uuidV7At(receivedAt), outcome: v.outcome, receivedAt, decision: null, applied: false, reporter, ...withDetail(v.detail) }));

/** A decision the reporter may not see is answered as one that does not exist (its existence is not revealed). */
function unknownDecision(index: number, decisionId: string): TOutcomeItemResult {
  return {
    index,
    status: 404,
    result: "unknown_decision",
    decisionId,
    error: errorBody("unknown_decision", `no decision with id "${decisionId}"`, [{ path: "decisionId", message: "no such decision" }]).error,
  };
}

/**
 * Whether a caller's outcome may be stored for its decision: the decision's operation is one the
 * reporter may use (else it is unknown to them), it names a provider the decision offered, and
 * the decision and provider are within their bound. Counts the outcome when it is admitted.
 * Null when admitted, else the item's refusal.
 */
function admit(ctx: TOutcomeContext, index: number, o: TOutcome, d: TDecisionRef, reporter: TReporter): TOutcomeItemResult | null {
  if (reporter.operations !== null && !reporter.operations.includes(d.operation)) return unknownDecision(index, o.decisionId);
  const provider = o.type === "provider_call" ? o.provider : (o.provider ?? d.selected);
  const offered = d.offered ?? (d.selected === null ? [] : [d.selected]);
  if (provider !== null && !offered.includes(provider)) {
    const message = `provider "${provider}" was not offered by this decision; it offered: ${offered.join(", ") || "none"}`;
    return { index, status: 422, result: "invalid", decisionId: o.decisionId, error: invalid([{ path: "provider", message }], message).toBody().error };
  }
  const id = o.decisionId.toLowerCase();
  const key = o.type === "provider_call" ? `${id}\u001f${provider}` : id;
  const stored = o.type === "provider_call" ? (d.stored?.calls[provider!] ?? 0) : (d.stored?.business ?? 0);
  const used = Math.max(stored, ctx.accepted.get(key) ?? 0);
  const max = o.type === "provider_call" ? MAX_CALL_OUTCOMES_PER_ATTEMPT : MAX_BUSINESS_OUTCOMES_PER_DECISION;
  if (used >= max) {
    const what = o.type === "provider_call" ? `provider-call outcomes for ${provider}` : "business outcomes";
    const message = `this decision already has ${max} ${what}, the most it takes`;
    return {
      index,
      status: 409,
      result: "invalid",
      decisionId: o.decisionId,
      error: errorBody("outcome_limit", message, [{ path: "decisionId", message }]).error,
    };
  }
  ctx.accepted.delete(key);
  ctx.accepted.set(key, used + 1);
  if (ctx.accepted.size > ACCEPTED_MEMORY) ctx.accepted.delete(ctx.accepted.keys().next().value!);
  return null;
}

/**
 * Splits valid items by their decision: known (in the table), early (the decision may still be in
 * a spool) and unknown (a 404 result, set here).
 */
async function sortByDecision(
  ctx: TOutcomeContext,
  valid: readonly TValid[],
  decisions: ReadonlyMap<string, TDecisionRef>,
  results: TOutcomeItemResult[],
  reporter: TReporter | null,
) {
  const opts = ctx.opts;
  const missing =
    opts.spool && opts.mayBeSpooled ? [...new Set(valid.filter((v) => !decisions.has(v.outcome.decisionId)).map((v) => v.outcome.decisionId))] : [];
  const waiting = missing.length > 0 ? await opts.mayBeSpooled!(missing).catch(() => new Set<string>()) : new Set<string>();
  const known: TValid[] = [];
  const early: TValid[] = [];
  for (const v of valid) {
    const d = decisions.get(v.outcome.decisionId);
    // Execute mode's own reports (no reporter) are its attempts: admitted as they are.
    const refused = d && reporter ? admit(ctx, v.index, v.outcome, d, reporter) : null;
    if (d && !refused) known.push(v);
    else if (!d && waiting.has(v.outcome.decisionId)) early.push(v);
    else {
      results[v.index] = refused ?? unknownDecision(v.index, v.outcome.decisionId);
      countOutcome(v.outcome.type, v.outcome.provider ?? "none", refused?.status === 404 || !refused ? "unknown_decision" : "invalid");
    }
  }
  return { known, early };
}

/** Writes outcomes whose decision is known through the group commit, or spools them while Postgres is away. */
async function writeKnown(
  ctx: TOutcomeContext,
  known: readonly TValid[],
  decisions: ReadonlyMap<string, TDecisionRef>,
  receivedAt: number,
  lazyMs: number,
  results: TOutcomeItemResult[],
  reporter: TReporter,
): Promise<void> {
  const pending = known.map((k) => ({
    id: uuidV7At(receivedAt),
    outcome: k.outcome,
    receivedAt,
    decision: decisions.get(k.outcome.decisionId)!,
    applied: false,
    reporter,
    ...withDetail(k.detail),
  }));
  try {
    await ctx.writer.submit(pending, { lazyMs });
    accept(results, "recorded", known);
  } catch (err) {
    if (!isConnectionError(err)) throw err;
    // Spooled as already counted: they are applied below, and the replay must not count them again.
    await spoolOutcomes(
      ctx.opts,
      pending.map((p) => ({ ...p, applied: true })),
      err,
    );
    accept(results, "spooled", known);
  }
  // Metrics and breakers follow durable acceptance: an outcome the caller will retry is not counted twice.
  for (const p of pending) applyOutcome(ctx.opts, p);
}

/**
 * Matches valid items to their decisions and stores them; results are in input order. `held`:
 * the caller already holds the decisions (execute mode made them), so they are not looked up
 * nor admitted (they are its own attempts). `reporter`: who reports, null for execute mode.
 */
async function storeOutcomes(
  ctx: TOutcomeContext,
  valid: TValid[],
  results: TOutcomeItemResult[],
  reporter: TReporter | null,
  apiKeyId: string | null,
  held?: ReadonlyMap<string, TDecisionRef>,
  lazyMs = 0,
): Promise<TOutcomeItemResult[]> {
  const stamp: TReporter = reporter ?? { apiKeyId, operations: null };
  if (valid.length === 0) return results;
  const receivedAt = ctx.now();
  let decisions: ReadonlyMap<string, TDecisionRef>;
  try {
    decisions = held ?? (await ctx.lookup([...new Set(valid.map((v) => v.outcome.decisionId))]));
  } catch (err) {
    if (!isConnectionError(err)) throw err;
    // The decision log is unreachable: accept now, match to decisions when the spool is replayed.
    await spoolOutcomes(ctx.opts, unmatched(valid, receivedAt, stamp), err);
    accept(results, "spooled", valid);
    return results;
  }
  const { known, early } = await sortByDecision(ctx, valid, decisions, results, reporter);
  if (early.length > 0) {
    // Their decision may still be in a spool: held like outcomes accepted during an outage, matched (and admitted) on replay.
    await spoolOutcomes(ctx.opts, unmatched(early, receivedAt, stamp), null);
    accept(results, "spooled", early);
  }
  if (known.length > 0) await writeKnown(ctx, known, decisions, receivedAt, lazyMs, results, stamp);
  return results;
}

/** A POST /outcomes body, one outcome or a batch envelope, through `ingest`; its status and body. */
async function handleOutcomeBody(body: unknown, ingest: (raw: readonly unknown[]) => Promise<TOutcomeItemResult[]>): Promise<TOutcomeResponse> {
  const isBatch = body !== null && typeof body === "object" && !Array.isArray(body) && "outcomes" in body;
  if (isBatch) {
    const list = (body as { outcomes: unknown }).outcomes;
    if (Array.isArray(list) && list.length > MAX_OUTCOME_BATCH) {
      throw new ContractError("batch_too_large", `outcomes holds ${list.length} items; the limit is ${MAX_OUTCOME_BATCH}`, "outcomes");
    }
    const envelope = ZOutcomeBatch.safeParse(body);
    if (!envelope.success) {
      throw fromZod(envelope.error);
    }
    const results = await ingest(envelope.data.outcomes);
    const response: TOutcomeBatchResponse = {
      results,
      recorded: results.filter((r) => r.result === "recorded").length,
      spooled: results.filter((r) => r.result === "spooled").length,
      rejected: results.filter((r) => r.status >= 400).length,
    };
    return { status: 200, body: response };
  }
  const [result] = await ingest([body]);
  if (!result) throw new ContractError("internal", "no result for the outcome");
  if (result.error) throw new ContractError(result.error.code, result.error.message, result.error.fields);
  return { status: result.status, body: { status: result.status, result: result.result, decisionId: result.decisionId } };
}

/**
 * Writes outcomes accepted during an outage. Those whose decision is not in the table yet go
 * back to the spool while younger than the grace period (their decision may still be in a
 * spool, this instance's or another's) and are dropped after it. Throws (keeping them spooled)
 * while the database is still unreachable.
 */
async function replayOutcomes(
  ctx: TOutcomeContext,
  records: TPendingOutcome[],
): Promise<{ written: number; deferred: number; unknown: number; refused: number }> {
  const { opts } = ctx;
  const unresolved = [...new Set(records.filter((r) => r.decision === null).map((r) => r.outcome.decisionId))];
  const found = unresolved.length > 0 ? await opts.lookup(unresolved) : new Map<string, TDecisionRef>();
  const ready: TPendingOutcome[] = [];
  const unknown: TPendingOutcome[] = [];
  let refused = 0;
  for (const r of records) {
    const decision = r.decision ?? found.get(r.outcome.decisionId) ?? null;
    if (decision === null) unknown.push(r);
    // Matched only now: admitted now, as POST /outcomes would have (a line spooled before reporters were kept is admitted as any key's).
    else if (r.decision === null && admit(ctx, 0, r.outcome, decision, r.reporter ?? { apiKeyId: null, operations: null }) !== null) refused++;
    else ready.push({ ...r, decision });
  }
  await storeInsert(opts, ready);
  for (const r of ready) applyOutcome(opts, r);
  const graceMs = opts.unmatchedGraceMs ?? UNMATCHED_OUTCOME_GRACE_MS;
  const t = ctx.now();
  const waiting = opts.spool ? unknown.filter((r) => t - r.receivedAt < graceMs) : [];
  // Same outcome id when re-spooled, so a crash between this append and the segment's deletion inserts it once.
  if (waiting.length > 0) await opts.spool!.append(waiting);
  return { written: ready.length, deferred: waiting.length, unknown: unknown.length - waiting.length, refused };
}

/**
 * POST /api/v1/outcomes. One outcome, or `{outcomes: [...]}` with up to MAX_OUTCOME_BATCH.
 * All-or-nothing per item: each item is validated, matched to its decision and written on its
 * own terms, so one bad item is a 400 (or 404) in its own result and the others are still
 * written; an item is never half-written. An accepted item is in Postgres when the response is
 * sent (201), or, with the database unreachable, fsynced to the spool and written later (202).
 */
export function createOutcomeService(opts: TOutcomeServiceOptions) {
  const ctx: TOutcomeContext = {
    opts,
    now: opts.now ?? Date.now,
    writer: createGroupCommit<TPendingOutcome>((items) => storeInsert(opts, items), 5_000),
    lookup: createGroupLookup<TDecisionRef>((ids) => opts.lookup(ids)),
    accepted: new Map(),
  };

  /** Raw items from POST /outcomes: validated, matched, admitted and stored; results in input order. */
  function ingest(raw: readonly unknown[], reporter: TReporter): Promise<TOutcomeItemResult[]> {
    const results: TOutcomeItemResult[] = new Array(raw.length);
    return storeOutcomes(ctx, validateOutcomes(opts.state, raw, results), results, reporter, reporter.apiKeyId);
  }

  return {
    /** `reporter`: the calling key (default: one that may touch every operation, stored with no key id). */
    handle: (body: unknown, reporter: TReporter = { apiKeyId: null, operations: null }): Promise<TOutcomeResponse> =>
      handleOutcomeBody(body, (raw) => ingest(raw, reporter)),

    /**
     * Execute mode's reports of its own calls, for a decision it made: the same writer, spool,
     * metrics and breakers as POST /outcomes. They are built by the gateway from the providers it
     * called (typed, not parsed from a body), so zod's pass over them is skipped, a measurable
     * share of execute's CPU (lib/dataplane/telemetry/README.md). Nobody waits for them (the caller
     * has its answer), so they may wait up to REPORT_LAZY_MS for other outcomes to share their transaction.
     */
    async record(
      outcomes: readonly TExecutedCall[],
      decisionId: string,
      decision: TDecisionRef,
      apiKeyId: string | null = null,
    ): Promise<TOutcomeItemResult[]> {
      return storeOutcomes(
        ctx,
        outcomes.map(({ detail, ...outcome }, index) => ({ index, outcome, ...withDetail(detail) })),
        new Array(outcomes.length),
        null,
        apiKeyId,
        new Map([[decisionId, decision]]),
        REPORT_LAZY_MS,
      );
    },

    /** Outcomes accepted during an outage, from the spool: how many were written, deferred and dropped as unknown. */
    replay: (records: TPendingOutcome[]) => replayOutcomes(ctx, records),

    get queueDepth(): number {
      return ctx.writer.depth;
    },
    drain: () => ctx.writer.drain(),
  };
}

export type OutcomeService = ReturnType<typeof createOutcomeService>;

/** A provider-call outcome as stored: provider_call_outcome's columns (ClickHouse mode's outcome table takes the same). */
export type TCallOutcomeRow = {
  outcome_id: string;
  decision_id: string;
  api_key_id: string | null;
  operation_key: string;
  region: string;
  provider_key: string;
  status: string;
  error_class: string | null;
  http_status: number | null;
  latency_ms: number;
  retry_count: number;
  ttfb_ms: number | null;
  detail: string | null;
  reported_at: string;
};

/** A business outcome as stored: business_outcome's columns. */
export type TBusinessOutcomeRow = {
  outcome_id: string;
  decision_id: string;
  api_key_id: string | null;
  operation_key: string;
  region: string;
  provider_key: string | null;
  completed: boolean;
  failure_stage: string | null;
  within_sla: boolean;
  reported_at: string;
};

/** Outcomes stored for one decision: provider calls by provider, and business outcomes (the bounds admit() checks). */
export type TStoredOutcomeCounts = { calls: Record<string, number>; business: number };

/** One stored outcome as the drilldown and GET /decisions/:id read it; `at`: when it was reported, epoch ms. */
export type TStoredOutcome =
  | {
      kind: "call";
      at: number;
      provider: string;
      status: string;
      errorClass: string | null;
      httpStatus: number | null;
      latencyMs: number;
      retryCount: number;
      detail: string | null;
      apiKeyId: string | null;
    }
  | { kind: "business"; at: number; provider: string | null; completed: boolean; failureStage: string | null; withinSla: boolean; apiKeyId: string | null };

/**
 * Another store for outcomes than Postgres's two tables (ClickHouse mode keeps them beside their
 * decisions). `insert` fails as the Postgres insert does: an error without a `severity` is an
 * outage (the outcome spool takes the batch), one with it a refusal; inserting the same outcome
 * ids again stores nothing twice.
 */
export type TOutcomeStore = {
  insert(items: readonly TPendingOutcome[]): Promise<void>;
  /** Stored outcomes per decision among `decisionIds` (absent: none). */
  counts(decisionIds: readonly string[]): Promise<Map<string, TStoredOutcomeCounts>>;
};

/** Accepted outcomes as rows of the two outcome kinds; those without a matched decision are not stored (yet). */
export function outcomeRows(items: readonly TPendingOutcome[]): { calls: TCallOutcomeRow[]; business: TBusinessOutcomeRow[] } {
  const calls: TCallOutcomeRow[] = [];
  const business: TBusinessOutcomeRow[] = [];
  for (const p of items) {
    const d = p.decision;
    if (!d) continue;
    const o = p.outcome;
    const at = new Date(p.receivedAt).toISOString();
    if (o.type === "provider_call") {
      calls.push({
        outcome_id: p.id,
        decision_id: o.decisionId.toLowerCase(),
        api_key_id: p.reporter?.apiKeyId ?? null,
        operation_key: d.operation,
        region: d.region,
        provider_key: o.provider,
        status: o.status,
        error_class: o.errorClass ?? null,
        http_status: o.httpStatus ?? null,
        latency_ms: o.latencyMs,
        retry_count: o.retryCount,
        ttfb_ms: o.ttfbMs ?? null,
        detail: p.detail ? p.detail.slice(0, MAX_CALL_DETAIL) : null,
        reported_at: at,
      });
    } else {
      business.push({
        outcome_id: p.id,
        decision_id: o.decisionId.toLowerCase(),
        api_key_id: p.reporter?.apiKeyId ?? null,
        operation_key: d.operation,
        region: d.region,
        provider_key: o.provider ?? d.selected,
        completed: o.completed,
        failure_stage: o.failureStage ?? null,
        within_sla: o.withinSla,
        reported_at: at,
      });
    }
  }
  return { calls, business };
}

/** Both outcome kinds in one statement: a group of outcomes commits or fails together. */
export async function insertOutcomes(pool: pg.Pool, items: readonly TPendingOutcome[]): Promise<void> {
  const { calls, business } = outcomeRows(items);
  if (calls.length === 0 && business.length === 0) return;
  // Named: prepared once per connection instead of parsed and planned for every batch. json, not
  // jsonb: the batch is read once, and building a jsonb value first costs Postgres more CPU per row.
  await pool.query({
    name: "outcome_insert",
    text: `with c as (
       insert into provider_call_outcome (outcome_id, decision_id, api_key_id, operation_key, region, provider_key, status, error_class,
         http_status, latency_ms, retry_count, ttfb_ms, detail, reported_at)
       select outcome_id, decision_id, api_key_id, operation_key, region, provider_key, status, error_class::"OutcomeErrorClass", http_status,
         latency_ms, retry_count, ttfb_ms, detail, reported_at
       from json_to_recordset($1::json) as x(outcome_id uuid, decision_id text, api_key_id text, operation_key text, region text, provider_key text,
         status text, error_class text, http_status int, latency_ms float8, retry_count int, ttfb_ms float8, detail text, reported_at timestamptz)
       on conflict (outcome_id) do nothing
       returning 1
     ), b as (
       insert into business_outcome (outcome_id, decision_id, api_key_id, operation_key, region, provider_key, completed, failure_stage,
         within_sla, reported_at)
       select outcome_id, decision_id, api_key_id, operation_key, region, provider_key, completed, failure_stage::"OutcomeFailureStage",
         within_sla, reported_at
       from json_to_recordset($2::json) as x(outcome_id uuid, decision_id text, api_key_id text, operation_key text, region text,
         provider_key text, completed boolean, failure_stage text, within_sla boolean, reported_at timestamptz)
       on conflict (outcome_id) do nothing
       returning 1
     )
     select (select count(*) from c) as calls, (select count(*) from b) as business`,
    values: [JSON.stringify(calls), JSON.stringify(business)],
  });
}
