import type { TOutcomeErrorClass } from "../dataplane";

/** How the gateway treats a failed attempt (the LLM-routing and token-gateway articles (docs/references.md)). */
export type TGatewayErrorClass = "transient" | "rate_limit" | "permanent";

export type TChatMessage = { role: "user" | "assistant"; content: string };

/**
 * The normalised request every adapter maps from. LLM adapters read `messages`/`system`/
 * `maxTokens`/`temperature`; the generic HTTP adapter templates from `input`.
 */
export type TGatewayRequest = {
  input: Readonly<Record<string, unknown>>;
  chat: { messages: readonly TChatMessage[]; system?: string; maxTokens: number; temperature?: number } | null;
  requestId: string;
  /** Sent upstream as Idempotency-Key so providers that deduplicate can. */
  idempotencyKey: string | null;
};

export type TUsage = { inputTokens: number; outputTokens: number };

/** The normalised result: chat adapters fill `text`; the generic adapter returns the provider's JSON as `body`. */
export type TGatewayResult = {
  text?: string;
  model?: string;
  finishReason?: string | null;
  usage?: TUsage;
  status: number;
  body?: unknown;
};

/** Rate-limit hints from 429 or success headers (Retry-After, x-ratelimit-*), in seconds from now. */
export type TRateLimitHint = { retryAfterSeconds: number | null; exhausted: boolean };

/** One upstream HTTP exchange as an adapter sees it. */
export type TUpstreamRequest = { url: string; method: string; headers: Record<string, string>; body: string | null };

/** A failed attempt, classified. `status` is the provider's HTTP status when it answered. */
export class AttemptError extends Error {
  /**
   * The cause in the transport's terms (error code, address and port, blocked address, redirect
   * host) for the server log and the console's drilldown only (provider_call_outcome.detail):
   * per-address detail told to a data-plane caller would make adapters a port scanner.
   */
  logDetail: string | null = null;

  constructor(
    readonly errorClass: TGatewayErrorClass,
    readonly outcomeClass: TOutcomeErrorClass,
    message: string,
    readonly status: number | null = null,
    /** The provider's own body for permanent errors, returned to the caller as is. */
    readonly providerBody: unknown = undefined,
    readonly rateLimit: TRateLimitHint | null = null,
  ) {
    super(message);
  }
}

/** One streamed piece of output in normalised form. */
export type TStreamDelta = { text: string };

/** The end of a stream as the adapter parsed it. */
export type TStreamEnd = { finishReason: string | null; usage?: TUsage; model?: string };

/** Incremental SSE decoding for one provider's stream format. */
export type TStreamDecoder = {
  /** Feeds one SSE event; returns the text it carries, "end" when the stream is complete, or null. */
  event(name: string | null, data: string): TStreamDelta | "end" | null;
  end(): TStreamEnd;
};

export type TAdapterKind = "http_json" | "openai_chat" | "anthropic_messages" | "gemini_generate";

/**
 * One provider API. `build` turns the normalised request into an HTTP request (the credential is
 * passed in at call time and only lives in the returned headers/URL); `parse` maps a 2xx body to
 * the normalised result (throwing AttemptError for bodies it cannot read).
 */
export type TAdapter = {
  kind: TAdapterKind;
  chat: boolean;
  build(req: TGatewayRequest, credential: string | null, stream: boolean): TUpstreamRequest;
  parse(status: number, body: unknown): TGatewayResult;
  /** Chat adapters only. */
  streamDecoder?(): TStreamDecoder;
};
