import { SwitchyardError, SwitchyardUnavailableError } from "./errors.js";

export type TRetryInfo = { method: string; path: string; attempt: number; status: number; delayMs: number; retryAfterMs: number | null };

export type THttpOptions = {
  baseUrl: string;
  apiKey?: string;
  timeoutMs: number;
  maxAttempts: number;
  backoff: { baseMs: number; capMs: number };
  /** A Retry-After longer than this is not waited for: the call fails (decide then answers fail-static). */
  maxRetryAfterMs: number;
  fetch: typeof fetch;
  random: () => number;
  sleep: (ms: number) => Promise<void>;
  onRetry?: (info: TRetryInfo) => void;
};

export type TCallOptions = { timeoutMs?: number; idempotencyKey?: string; retry?: boolean; signal?: AbortSignal };

/** Retry-After in ms: delta-seconds or an HTTP date; null when absent or unreadable. */
export function parseRetryAfter(value: string | null, now = Date.now()): number | null {
  if (value === null || value.trim() === "") return null;
  const seconds = Number(value);
  if (Number.isFinite(seconds)) return Math.max(0, seconds * 1000);
  const at = Date.parse(value);
  return Number.isNaN(at) ? null : Math.max(0, at - now);
}

/**
 * The wait before retry `attempt` (1-based): the server's Retry-After when it sent one, plus up
 * to one base interval of jitter so that callers told the same second do not return together;
 * otherwise full jitter, uniform in [0, min(cap, base·2^(attempt−1))] (the AWS formulation).
 */
export function retryDelay(attempt: number, retryAfterMs: number | null, backoff: { baseMs: number; capMs: number }, random: () => number): number {
  if (retryAfterMs !== null) return retryAfterMs + random() * backoff.baseMs;
  return random() * Math.min(backoff.capMs, backoff.baseMs * 2 ** (attempt - 1));
}

function isTimeout(err: unknown): boolean {
  const name = (err as { name?: string } | null)?.name;
  return name === "TimeoutError" || name === "AbortError";
}

/**
 * One JSON call with a timeout per attempt, retried on 429 and 503 (honouring Retry-After) up to
 * maxAttempts. Network errors and timeouts are not retried: an unreachable Switchyard should be
 * noticed at once, and decide has its fail-static answer for it.
 */
export async function callJson<T>(
  o: THttpOptions,
  method: string,
  path: string,
  body: unknown,
  call: TCallOptions = {},
): Promise<{ status: number; body: T; headers: Headers }> {
  const headers: Record<string, string> = { accept: "application/json" };
  if (body !== undefined) headers["content-type"] = "application/json";
  if (o.apiKey) headers.authorization = `Bearer ${o.apiKey}`;
  if (call.idempotencyKey) headers["idempotency-key"] = call.idempotencyKey;
  const payload = body === undefined ? undefined : JSON.stringify(body);
  const attempts = call.retry === false ? 1 : Math.max(1, o.maxAttempts);
  const timeoutMs = call.timeoutMs ?? o.timeoutMs;
  for (let attempt = 1; ; attempt++) {
    let res: Response;
    let text: string;
    try {
      res = await o.fetch(`${o.baseUrl}${path}`, {
        method,
        headers,
        body: payload,
        signal: call.signal ? AbortSignal.any([call.signal, AbortSignal.timeout(timeoutMs)]) : AbortSignal.timeout(timeoutMs),
      });
      text = await res.text();
    } catch (err) {
      if (isTimeout(err)) throw new SwitchyardUnavailableError("timeout", `Switchyard did not answer ${method} ${path} within ${timeoutMs} ms`);
      throw new SwitchyardUnavailableError("unreachable", `Switchyard is unreachable (${method} ${path}: ${(err as Error).message}${causeOf(err)})`);
    }
    const retryAfterMs = parseRetryAfter(res.headers.get("retry-after"));
    if ((res.status === 429 || res.status === 503) && attempt < attempts && (retryAfterMs === null || retryAfterMs <= o.maxRetryAfterMs)) {
      const delayMs = retryDelay(attempt, retryAfterMs, o.backoff, o.random);
      o.onRetry?.({ method, path, attempt, status: res.status, delayMs, retryAfterMs });
      await o.sleep(delayMs);
      continue;
    }
    let parsed: unknown = null;
    try {
      parsed = text === "" ? null : JSON.parse(text);
    } catch {
      parsed = text;
    }
    if (res.status >= 200 && res.status < 300) return { status: res.status, body: parsed as T, headers: res.headers };
    const err = (parsed as { error?: { code?: unknown; message?: unknown } } | null)?.error;
    const code = typeof err?.code === "string" ? err.code : `http_${res.status}`;
    const message = typeof err?.message === "string" ? err.message : `Switchyard answered ${res.status}`;
    if (res.status === 429) throw new SwitchyardUnavailableError("rate_limited", `${message} (after ${attempt} attempts)`, 429);
    if (res.status === 503) throw new SwitchyardUnavailableError("overloaded", `${message} (after ${attempt} attempts)`, 503);
    if (res.status >= 500 && res.status !== 504) throw new SwitchyardUnavailableError("server_error", message, res.status);
    throw new SwitchyardError(res.status, code, message, parsed, retryAfterMs);
  }
}

function causeOf(err: unknown): string {
  const cause = (err as { cause?: { code?: string } } | null)?.cause;
  return cause?.code ? `, ${cause.code}` : "";
}
