import type { ServerOptions } from "node:http";

type TEnv = Readonly<Record<string, string | undefined>>;

export type TServerTimeouts = Required<Pick<ServerOptions, "headersTimeout" | "requestTimeout" | "connectionsCheckingInterval">>;

function ms(env: TEnv, name: string, fallback: number): number {
  const raw = env[name];
  if (raw === undefined || raw === "") return fallback;
  const n = Number(raw);
  if (!Number.isInteger(n) || n < 1) throw new RangeError(`${name} must be an integer >= 1 (milliseconds), got ${JSON.stringify(raw)}`);
  return n;
}

/**
 * How long a client may take to send a request's headers (HEADERS_TIMEOUT_MS, 5 s) and the whole
 * request, body included (REQUEST_TIMEOUT_MS, 10 s), before it gets a 408 and its connection is
 * closed. Node's defaults (60 s and 300 s) let a body trickled at 1 byte/s hold a socket for
 * 320 s. node:http checks both only every `connectionsCheckingInterval` (30 s by default), so the
 * check runs at least once a second here. Options for `http.createServer`; a bad value fails the
 * start naming the variable.
 */
export function serverTimeoutsFromEnv(env: TEnv): TServerTimeouts {
  const headersTimeout = ms(env, "HEADERS_TIMEOUT_MS", 5_000);
  const requestTimeout = ms(env, "REQUEST_TIMEOUT_MS", 10_000);
  // node:http refuses a headers timeout longer than the request's.
  if (headersTimeout > requestTimeout) throw new RangeError(`HEADERS_TIMEOUT_MS (${headersTimeout}) must not exceed REQUEST_TIMEOUT_MS (${requestTimeout})`);
  return { headersTimeout, requestTimeout, connectionsCheckingInterval: Math.min(1_000, Math.ceil(headersTimeout / 4)) };
}
