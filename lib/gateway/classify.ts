import type { IncomingHttpHeaders } from "node:http";
import { AttemptError, type TRateLimitHint } from "./types";

/**
 * Error classes (the LLM-routing article (docs/references.md) "classify errors", the token-gateway article (docs/references.md)): 429 is rate_limit, 5xx and 408 are
 * transient, any other 4xx is permanent (the caller's request is wrong; another provider would
 * refuse it too). Each maps onto the data plane's outcome errorClass so metrics and breakers see
 * it: http_4xx does not count against the provider.
 */
export function classifyStatus(status: number, headers: IncomingHttpHeaders, body: unknown, now: number): AttemptError {
  // Redirects are never followed (the target could be anywhere) nor passed on as a Location-less 3xx.
  if (status >= 300 && status < 400) {
    const e = new AttemptError("transient", "other", `provider answered a redirect (${status}), which is not followed`, status);
    e.logDetail = `redirect ${status} to ${redirectHost(headers.location)}`;
    return e;
  }
  if (status === 429) {
    const hint = parseRateLimit(headers, now) ?? { retryAfterSeconds: null, exhausted: true };
    return new AttemptError(
      "rate_limit",
      "throttled",
      `provider answered 429${hint.retryAfterSeconds !== null ? ` (retry after ${hint.retryAfterSeconds} s)` : ""}`,
      status,
      body,
      { ...hint, exhausted: true },
    );
  }
  if (status === 408) return new AttemptError("transient", "timeout", "provider answered 408 request timeout", status, body);
  if (status >= 500) return new AttemptError("transient", "http_5xx", `provider answered ${status}`, status, body);
  return new AttemptError("permanent", "http_4xx", `provider answered ${status}`, status, body);
}

/**
 * A request that got no HTTP answer: timeouts and connection failures are transient. The caller
 * is told only that the connection failed; refused, reset, unknown name, TLS or forbidden
 * address (ECONNREFUSED, ENOTFOUND, EPROTO…) differ per address and go to `logDetail`.
 */
export function classifyTransportError(err: unknown, timedOut: boolean): AttemptError {
  if (err instanceof AttemptError) return err;
  if (timedOut) return new AttemptError("transient", "timeout", "provider did not answer within the attempt timeout");
  const e = new AttemptError("transient", "network", "the connection to the provider failed");
  e.logDetail = transportDetail(err);
  return e;
}

/** The longest attempt detail kept (provider_call_outcome.detail is varchar(500)). */
export const MAX_ATTEMPT_DETAIL = 500;

/**
 * A transport error for on-call: its message with the fields it leaves out (code, syscall, host,
 * address and port) put before it. Any URL in the message is cut to scheme and host, so no path,
 * query or user part (where a credential could sit) is kept; the whole is bounded.
 */
export function transportDetail(err: unknown): string {
  const e = (err ?? {}) as { code?: unknown; syscall?: unknown; hostname?: unknown; address?: unknown; port?: unknown; message?: unknown };
  const text = (v: unknown) => (typeof v === "string" || typeof v === "number" ? String(v) : "");
  const at = text(e.address) && text(e.port) ? `${text(e.address)}:${text(e.port)}` : text(e.address);
  const fields = [text(e.code), text(e.syscall), text(e.hostname), at].filter((x) => x !== "");
  const message = (typeof e.message === "string" ? e.message : String(err)).replace(/\b[a-z][a-z0-9+.-]*:\/\/[^\s"'<>]*/gi, (url) => redirectHost(url));
  const told = fields.filter((f) => !message.includes(f));
  const detail = told.length === 0 ? message : `${told.join(" ")}: ${message}`;
  return detail.length > MAX_ATTEMPT_DETAIL ? `${detail.slice(0, MAX_ATTEMPT_DETAIL - 1)}…` : detail;
}

/** Where a redirect pointed, as scheme and host only: its path or query may carry a token. */
function redirectHost(location: string | string[] | undefined): string {
  const first = Array.isArray(location) ? location[0] : location;
  if (!first) return "no location";
  try {
    const u = new URL(first);
    return `${u.protocol}//${u.host}`;
  } catch {
    return "a relative location";
  }
}

export function malformedBody(detail: string, status: number): AttemptError {
  return new AttemptError("transient", "other", `provider sent an unreadable body: ${detail}`, status);
}

/**
 * Rate-limit hints from Retry-After (seconds or HTTP date), retry-after-ms, OpenAI's
 * x-ratelimit-remaining-requests / x-ratelimit-reset-requests ("6m0s", "20ms"), the common
 * x-ratelimit-remaining / x-ratelimit-reset (seconds, or an epoch) and Anthropic's
 * anthropic-ratelimit-requests-remaining / -reset (RFC 3339). null when there are none.
 */
export function parseRateLimit(headers: IncomingHttpHeaders, now: number): TRateLimitHint | null {
  // Module-level helpers, not closures: tsx wraps each arrow it can name in a defineProperty call
  // per creation, and this runs on every provider answer (lib/gateway/README.md).
  let retry: number | null = null;
  const ms = header(headers, "retry-after-ms");
  if (ms !== undefined && ms.trim() !== "" && Number.isFinite(Number(ms))) retry = later(retry, Number(ms) / 1000);
  else {
    const ra = header(headers, "retry-after");
    if (ra !== undefined) retry = later(retry, parseSecondsOrDate(ra, now));
  }
  const remaining = firstNumber(
    header(headers, "x-ratelimit-remaining-requests"),
    header(headers, "x-ratelimit-remaining"),
    header(headers, "anthropic-ratelimit-requests-remaining"),
  );
  const exhausted = remaining !== null && remaining <= 0;
  if (exhausted) {
    retry = later(retry, parseDuration(header(headers, "x-ratelimit-reset-requests")));
    const reset = header(headers, "x-ratelimit-reset");
    if (reset !== undefined) {
      const n = Number(reset);
      // Some providers send an epoch (seconds), others seconds from now.
      if (Number.isFinite(n)) retry = later(retry, n > 1e9 ? n - now / 1000 : n);
    }
    const anthropic = header(headers, "anthropic-ratelimit-requests-reset");
    if (anthropic !== undefined) retry = later(retry, parseSecondsOrDate(anthropic, now));
  }
  if (retry === null && !exhausted) return null;
  return { retryAfterSeconds: retry === null ? null : Math.ceil(retry * 1000) / 1000, exhausted };
}

/** A header's (first) value. */
function header(headers: IncomingHttpHeaders, name: string): string | undefined {
  const v = headers[name];
  return Array.isArray(v) ? v[0] : v;
}

/** The later of a wait so far and another hint (seconds); a hint that is not a finite, non-negative number is ignored. */
function later(retry: number | null, s: number | null): number | null {
  if (s === null || !Number.isFinite(s) || s < 0) return retry;
  return retry === null ? s : Math.max(retry, s);
}

function firstNumber(...values: Array<string | undefined>): number | null {
  for (const v of values) {
    if (v === undefined || v.trim() === "") continue;
    const n = Number(v);
    if (Number.isFinite(n)) return n;
  }
  return null;
}

function parseSecondsOrDate(value: string, now: number): number | null {
  const trimmed = value.trim();
  if (/^\d+(\.\d+)?$/.test(trimmed)) return Number(trimmed);
  const at = Date.parse(trimmed);
  return Number.isNaN(at) ? null : Math.max(0, (at - now) / 1000);
}

/** "6m0s", "1.5s", "20ms", "1h2m" → seconds. */
export function parseDuration(value: string | undefined): number | null {
  if (value === undefined) return null;
  const v = value.trim();
  if (/^\d+(\.\d+)?$/.test(v)) return Number(v);
  const re = /(\d+(?:\.\d+)?)(ms|h|m|s)/g;
  let total = 0;
  let matched = "";
  for (let m = re.exec(v); m !== null; m = re.exec(v)) {
    const n = Number(m[1]);
    total += m[2] === "ms" ? n / 1000 : m[2] === "h" ? n * 3600 : m[2] === "m" ? n * 60 : n;
    matched += m[0];
  }
  return matched.length === v.length && matched.length > 0 ? total : null;
}
