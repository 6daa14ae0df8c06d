import { contextWindowFits, FALLBACK_POLICIES, type TFallbackDecision } from "../../router-core/index";
import { unknownOperation, unknownRegion } from "../edge";
import { ContractError, errorBody, fromZod, invalid, malformed } from "../http";
import { uuidV7At, type TActivePolicy } from "../dataplane";
import { estimateTokens, toChat, ZChatInput } from "./chat-input";
import { DEFAULT_OPERATION_LIMITS, type TOperationLimits, type TProviderAdapterConfig } from "./config";
import { jsonAnswer, type TAnswer } from "./answer";
import type { TGatewayContext } from "./context";
import type { TLoggedDecision, TRequestGate } from "./decide-and-log";
import type { TExecuteRequest } from "./schema";
import type { TGatewayRequest } from "./types";

/** An execution routed and logged, ready for its attempts. */
export type TPrepared = {
  operation: string;
  region: string;
  limits: TOperationLimits;
  active: TActivePolicy;
  request: TGatewayRequest;
  input: TExecuteRequest;
  decision: TLoggedDecision;
  /** Providers in failover order: the selected one, then the other eligible ones by score. */
  order: string[];
  adapters: ReadonlyMap<string, TProviderAdapterConfig>;
  startedAt: number;
  deadlineAt: number;
};

export type TPrepareResult = { ok: true; prepared: TPrepared } | { ok: false; answer: TAnswer; retryAfterSeconds: number | null };

function contextWindowExceeded(estimated: number) {
  const message = `the request needs about ${estimated} tokens, more than any provider's context window`;
  return errorBody("context_window_exceeded", message, [{ path: "input.messages", message }]);
}

/** A refusal before any decision (docs/errors.md). */
function fail(err: ContractError): TPrepareResult {
  return { ok: false, answer: jsonAnswer(err.status, err.toBody(), err.headers()), retryAfterSeconds: null };
}

/**
 * Validation, budget guards, request-level gates and the decision, up to the first attempt:
 * everything an execute call does before a provider is called, shared by the JSON and the
 * streaming path. `requestId` is the caller's or generated; `previouslyAttempted` comes from an
 * idempotency takeover. `queueOwner` is the principal a queued job belongs to (only it may read
 * the answer); null: nothing is queued (streams, a queued job's own run). `caller`: the principal
 * id the decision is logged under (its requestId is that key's own).
 */
export async function prepareExecution(
  ctx: TGatewayContext,
  operation: string,
  input: TExecuteRequest,
  requestId: string,
  idempotencyKey: string | null,
  previouslyAttempted: readonly string[],
  queueOwner: string | null,
  caller: string | null,
): Promise<TPrepareResult> {
  const state = ctx.state;
  const active = state.policyFor(operation);
  if (!active) {
    return fail(unknownOperation(operation, state.operations()));
  }
  const routerState = state.snapshotFor(operation, input.region);
  if (!routerState) {
    return fail(unknownRegion(operation, input.region, state.knownRegions(operation)));
  }
  const cfg = ctx.config();
  const limits = cfg.limits.get(operation) ?? DEFAULT_OPERATION_LIMITS;
  const candidates = active.policy.providers.length > 0 ? active.policy.providers : routerState.providers.map((p) => p.key);
  const primary = candidates[0] ?? null;
  const chat = chatOf(cfg.adapters, candidates, operation, input);
  if (chat !== null && "ok" in chat) return chat;

  const costBreach = ctx.budget.costBreach(operation, limits);
  if (costBreach) {
    ctx.events.record({
      operation,
      region: input.region,
      type: "budget_breach",
      provider: null,
      detail: costBreach.detail,
      evidence: { kind: costBreach.kind, ...costBreach.evidence },
      policyVersion: active.version,
    });
    const action = FALLBACK_POLICIES[active.policy.fallback_policy as keyof typeof FALLBACK_POLICIES];
    const retryAfterSeconds = ctx.budget.retryAfterSeconds(operation, costBreach.kind);
    const fallback: TFallbackDecision = { action: action === "probe_only" ? "queue" : action, retryAfterSeconds, detail: `budget guard: ${costBreach.detail}` };
    return degrade(ctx, operation, input, limits, null, fallback, queueOwner, { budget: costBreach.kind });
  }
  const fallbackBreach = ctx.budget.fallbackBreach(operation, limits);
  if (fallbackBreach) {
    ctx.events.record({
      operation,
      region: input.region,
      type: "max_fallback_duration",
      provider: primary,
      detail: fallbackBreach.detail,
      evidence: fallbackBreach.evidence,
      policyVersion: active.version,
    });
  }
  const gated = requestGates(
    cfg.adapters,
    candidates,
    chat,
    fallbackBreach && `budget guard: ${fallbackBreach.detail}; only the primary may serve`,
    previouslyAttempted,
    `already called for idempotency key ${idempotencyKey ?? requestId}`,
  );

  const decision = ctx.decide(
    { operation, region: input.region, requestId, attributes: input.attributes, apiKeyId: caller },
    active,
    routerState,
    gated.excluded,
  );
  const record = decision.record;
  // Swallowed here; the attempt path awaits it and reports a failed write.
  decision.written.catch(() => {});
  const routed: TRouted = { ctx, operation, input, limits, active, chat, requestId, idempotencyKey, decision, adapters: cfg.adapters };

  if (record.selected === null) {
    if (chat && gated.tooLarge > 0 && gated.tooLarge === candidates.filter((p) => cfg.adapters.get(p)?.adapter.chat).length) {
      return {
        ok: false,
        retryAfterSeconds: null,
        answer: jsonAnswer(422, {
          ...contextWindowExceeded(gated.estimated),
          decisionId: decision.decisionId,
        }),
      };
    }
    const fb = record.fallback ?? { action: "degraded_message", retryAfterSeconds: active.policy.refresh_interval_seconds, detail: "no eligible provider" };
    if (fb.action === "probe_only" && fb.provider) {
      return ready(routed, [fb.provider]);
    }
    return degrade(ctx, operation, input, limits, decision.decisionId, fb, queueOwner, {});
  }

  const eligible = record.candidates
    .filter((c) => c.eligible && c.provider !== record.selected)
    .sort((a, b) => (b.score ?? -Infinity) - (a.score ?? -Infinity) || a.priority - b.priority)
    .map((c) => c.provider);
  return ready(routed, [record.selected, ...eligible]);
}

/**
 * The request's chat form when any candidate's adapter takes chat: null when none does, a failed
 * result when the input is not a valid chat (or asks to stream without an LLM provider).
 */
function chatOf(
  adapters: ReadonlyMap<string, TProviderAdapterConfig>,
  candidates: readonly string[],
  operation: string,
  input: TExecuteRequest,
): TGatewayRequest["chat"] | TPrepareResult {
  const anyChat = candidates.some((p) => adapters.get(p)?.adapter.chat === true);
  if (!anyChat) {
    if (input.stream) return fail(invalid([{ path: "stream", message: `${operation} has no LLM provider; streaming is for LLM adapters` }]));
    return null;
  }
  const parsed = ZChatInput.safeParse(input.input);
  if (!parsed.success) return fail(fromZod(parsed.error, 400, undefined, ["input"]));
  const chat = toChat(parsed.data);
  if (chat.messages.length === 0) return fail(malformed([{ path: "input.messages", message: "at least one user or assistant message is required" }]));
  return chat;
}

/**
 * The request-level gates per candidate: an adapter that can take the request, the context
 * window, the fallback-duration guard (`fallbackOnly`: its detail when it binds) and providers
 * already called for the idempotency key. Returns the failing gates by provider, the token
 * estimate and how many candidates the request is too large for.
 */
function requestGates(
  adapters: ReadonlyMap<string, TProviderAdapterConfig>,
  candidates: readonly string[],
  chat: TGatewayRequest["chat"],
  fallbackOnly: string | null,
  previouslyAttempted: readonly string[],
  calledDetail: string,
): { excluded: Map<string, TRequestGate[]>; estimated: number; tooLarge: number } {
  const excluded = new Map<string, TRequestGate[]>();
  const estimated = chat ? estimateTokens(chat) : 0;
  const primary = candidates[0] ?? null;
  let tooLarge = 0;
  for (const p of candidates) {
    const gates: TRequestGate[] = [];
    const a = adapters.get(p);
    if (!a) gates.push({ gate: "adapter_configured", passed: false, detail: `no adapter configured for ${p} (provider_adapter)` });
    else if (chat) {
      if (!a.adapter.chat) gates.push({ gate: "adapter_configured", passed: false, detail: `${p}'s ${a.kind} adapter cannot take a chat request` });
      else {
        const fit = contextWindowFits({ estimatedTokens: estimated, contextWindow: a.contextWindow, model: a.model });
        if (!fit.passed) {
          gates.push(fit);
          tooLarge++;
        }
      }
    }
    if (fallbackOnly !== null && p !== primary) gates.push({ gate: "max_fallback_duration", passed: false, detail: fallbackOnly });
    if (previouslyAttempted.includes(p)) gates.push({ gate: "not_called_for_key", passed: false, detail: calledDetail });
    if (gates.length > 0) excluded.set(p, gates);
  }
  return { excluded, estimated, tooLarge };
}

/** What a routed execution carries into its TPrepared. */
type TRouted = {
  ctx: TGatewayContext;
  operation: string;
  input: TExecuteRequest;
  limits: TOperationLimits;
  active: TActivePolicy;
  chat: TGatewayRequest["chat"];
  requestId: string;
  idempotencyKey: string | null;
  decision: TLoggedDecision;
  adapters: ReadonlyMap<string, TProviderAdapterConfig>;
};

function ready(r: TRouted, order: string[]): TPrepareResult {
  const { ctx, input, limits } = r;
  const startedAt = ctx.now();
  const deadlineMs = Math.min(limits.deadlineMs, input.deadlineMs ?? Infinity);
  return {
    ok: true,
    prepared: {
      operation: r.operation,
      region: input.region,
      limits,
      active: r.active,
      request: { input: input.input, chat: r.chat, requestId: r.requestId, idempotencyKey: r.idempotencyKey },
      input,
      decision: r.decision,
      order,
      adapters: r.adapters,
      startedAt,
      deadlineAt: startedAt + deadlineMs,
    },
  };
}

/**
 * Nothing eligible (or a budget guard refused): the token-gateway article (docs/references.md) section 3's degradation, per the factor
 * list's fallback policy. A cached answer first where the operation allows one, then the queue
 * (202 with position and poll URL) or a friendly 503 with Retry-After.
 */
export async function degrade(
  ctx: TGatewayContext,
  operation: string,
  input: TExecuteRequest,
  limits: TOperationLimits,
  decisionId: string | null,
  fallback: TFallbackDecision,
  queueOwner: string | null,
  extra: Record<string, unknown>,
): Promise<TPrepareResult> {
  const retryAfterSeconds = Math.max(1, Math.ceil(fallback.retryAfterSeconds ?? 30));
  if (limits.cacheTtlSeconds !== null && !input.stream) {
    const hit = ctx.cache.get(operation, input.input, limits.cacheTtlSeconds);
    if (hit) {
      const cached = hit.body as Record<string, unknown>;
      return {
        ok: false,
        retryAfterSeconds: null,
        answer: jsonAnswer(200, { ...cached, decisionId, attempts: [], cached: { ageSeconds: hit.ageSeconds } }, { "x-switchyard-cache": "hit" }),
      };
    }
  }
  if (fallback.action === "queue" && queueOwner !== null && !input.stream && input.queue) {
    const job = await ctx.jobs.enqueue(operation, { operation, input }, retryAfterSeconds, queueOwner);
    if (job) {
      return {
        ok: false,
        retryAfterSeconds,
        answer: jsonAnswer(
          202,
          {
            status: "queued",
            jobId: job.id,
            position: job.position,
            pollUrl: `/api/v1/execute/jobs/${job.id}`,
            retryAfterSeconds,
            decisionId,
            detail: fallback.detail,
            ...extra,
          },
          { "retry-after": String(retryAfterSeconds), location: `/api/v1/execute/jobs/${job.id}` },
        ),
      };
    }
  }
  return {
    ok: false,
    retryAfterSeconds: fallback.action === "queue" ? retryAfterSeconds : null,
    answer: jsonAnswer(
      503,
      {
        ...errorBody("capacity_exhausted", `No provider can take this request right now; please retry in ${retryAfterSeconds} s.`),
        decisionId,
        fallback: { action: fallback.action, detail: fallback.detail },
        ...extra,
      },
      { "retry-after": String(retryAfterSeconds) },
    ),
  };
}

/**
 * The request id of an execute call that brought none: time-ordered, so the decision table's
 * (operation, request_id) index takes it at its right edge.
 */
export function newRequestId(): string {
  return uuidV7At(Date.now());
}
