import type { IncomingMessage } from "node:http";
import { errorBody, type TErrorBody, type TErrorCode } from "../http";
import { type TApiKeyScope, verifyApiKey, type TApiKeyVerification } from "../auth";
import type { PrismaClient } from "../db";
import { createRateLimiter, rateLimitSettingsFromEnv, type TRateLimitSettings } from "./rate-limit";

/**
 * Who is calling the data plane: a scoped API key created by an admin (governance), the one
 * bootstrap key from SWITCHYARD_API_KEY (every scope), or nobody in the embedded-database demo.
 */
export type TPrincipal =
  | { kind: "environment_key" | "anonymous"; id: string }
  | { kind: "api_key"; id: string; prefix: string; scopes: readonly TApiKeyScope[]; operationKeys: readonly string[] };

export type TAuthDenied = { ok: false; status: number; body: TErrorBody; headers?: Record<string, string> };

/**
 * `charge(n)`: a batch route's n more items, taken from the key's rate budget after its body is
 * read (the call itself took one); a 429 result when the budget does not hold them, else null.
 * Absent for callers that are not rate limited (the keyless demo).
 */
export type TAuthResult = { ok: true; principal: TPrincipal; charge?: (items: number) => TAuthDenied | null } | TAuthDenied;

export type TAuthenticator = (req: IncomingMessage, scope: TApiKeyScope) => Promise<TAuthResult>;

export type TAuthOptions = {
  /** The bootstrap bearer key; undefined or empty means none is configured. */
  apiKey: string | undefined;
  /** A call without credentials: true lets it through (the embedded-database demo), false refuses it. */
  allowAnonymousWithoutKey: boolean;
  /** Checks a governance-issued key (`sy_…`) for a scope; absent: only the bootstrap key works. */
  verifyScopedKey?: (presented: string, scope: TApiKeyScope) => Promise<TApiKeyVerification>;
  /** Per-key token buckets; absent: API_KEY_RATE_LIMIT / API_KEY_RATE_LIMITS (a bad value throws, naming the variable). */
  rateLimit?: TRateLimitSettings;
  now?: () => number;
};

/**
 * Whether the presented key is the expected one, in time that depends on the expected key's
 * length only: every character is compared, whatever the presented length and wherever the
 * two differ (a character past the presented end compares as 0, and a length difference alone
 * makes them differ). Hashing the presented key on every call to compare digests gave the same
 * guarantee at a cost decide paid on each request.
 */
export function sameKey(presented: string, expected: string): boolean {
  let diff = presented.length ^ expected.length;
  for (let i = 0; i < expected.length; i++) diff |= (presented.charCodeAt(i) | 0) ^ expected.charCodeAt(i);
  return diff === 0;
}

/** `Bearer <key>`: the key, trimmed, or null. The usual spelling (one space, then the key) is read without the pattern. */
function bearerKey(header: string): string | null {
  if (header.length > 7 && header.startsWith("Bearer ") && !WHITESPACE.test(header[7]!)) return header.slice(7).trim();
  const m = /^Bearer\s+(.+)$/i.exec(header);
  return m ? m[1]!.trim() : null;
}

const WHITESPACE = /\s/;

/** Error codes and extra headers of a refused call, by status. */
const DENIED: Record<401 | 403 | 503, { code: TErrorCode; headers?: Record<string, string> }> = {
  401: { code: "unauthenticated", headers: { "www-authenticate": 'Bearer realm="switchyard"' } },
  403: { code: "forbidden" },
  503: { code: "auth_unavailable", headers: { "retry-after": "1" } },
};

function deny(status: 401 | 403 | 503, message: string): TAuthResult {
  return {
    ok: false,
    status,
    body: errorBody(DENIED[status].code, message, [{ path: "authorization", message }]),
    headers: DENIED[status].headers,
  };
}

const limitedBody = (message: string) => errorBody("rate_limited", message, [{ path: "authorization", message }]);

function rateLimited(who: string, perSecond: number, retryAfterSeconds: number): TAuthDenied {
  return {
    ok: false,
    status: 429,
    body: limitedBody(`${who} is over its limit of ${perSecond} requests/s; retry after ${retryAfterSeconds} s`),
    headers: { "retry-after": String(retryAfterSeconds) },
  };
}

const ANONYMOUS: TAuthResult = { ok: true, principal: { kind: "anonymous", id: "anonymous" } };
const ENV_PRINCIPAL: TPrincipal = { kind: "environment_key", id: "env:SWITCHYARD_API_KEY" };

export function createAuthenticator(opts: TAuthOptions): TAuthenticator {
  const envKey = opts.apiKey ? opts.apiKey : null;
  const limiter = createRateLimiter(opts.rateLimit ?? rateLimitSettingsFromEnv(process.env), opts.now);
  // Only authenticated keys are limited: a bad key never reaches a bucket (nor the database,
  // thanks to verify-api-key's negative cache), and the keyless demo is loopback-only.
  const charger =
    (bucket: string, who: string) =>
    (items: number): TAuthDenied | null => {
      const d = limiter.take(bucket, items);
      return d.ok ? null : rateLimited(who, d.limit.perSecond, d.retryAfterSeconds);
    };
  const limited = (bucket: string, who: string, principal: TPrincipal, charge: (items: number) => TAuthDenied | null): TAuthResult =>
    charge(1) ?? { ok: true, principal, charge };
  const envCharge = charger("env", "SWITCHYARD_API_KEY");
  // The bootstrap key's answer is the same object every time it is within its rate.
  const envOk: TAuthResult = { ok: true, principal: ENV_PRINCIPAL, charge: envCharge };
  return async (req, scope) => {
    const header = req.headers.authorization;
    if (!header) {
      return opts.allowAnonymousWithoutKey ? ANONYMOUS : deny(401, "missing Authorization: Bearer <api key>");
    }
    const presented = bearerKey(header);
    if (presented === null) return deny(401, "Authorization must be Bearer <api key>");
    if (envKey && sameKey(presented, envKey)) return envCharge(1) ?? envOk;
    if (opts.verifyScopedKey && presented.startsWith("sy_")) {
      const v = await opts.verifyScopedKey(presented, scope);
      if (!v.ok) return deny(v.status, v.reason);
      const p = v.principal;
      const principal: TPrincipal = { kind: "api_key", id: p.apiKeyId, prefix: p.prefix, scopes: p.scopes, operationKeys: p.operationKeys };
      return limited(p.prefix, `API key ${p.prefix}`, principal, charger(p.prefix, `API key ${p.prefix}`));
    }
    return deny(401, "invalid API key");
  };
}

/** A key restricted to some operations may route only those; null when allowed. */
export function operationDenied(principal: TPrincipal, operation: string): TAuthResult | null {
  if (principal.kind !== "api_key" || principal.operationKeys.length === 0 || principal.operationKeys.includes(operation)) return null;
  return deny(403, `API key ${principal.prefix} is not allowed for operation ${operation}`);
}

/**
 * The data plane's authenticator, from its settings: the bootstrap key, governance's scoped keys
 * (checked against the database), and no key at all only on the embedded demo database.
 */
export function dataPlaneAuthenticator(opts: {
  apiKey: string | undefined;
  embeddedDatabase: boolean;
  prisma: PrismaClient;
  rateLimit?: TRateLimitSettings;
}): TAuthenticator {
  return createAuthenticator({
    apiKey: opts.apiKey,
    allowAnonymousWithoutKey: opts.embeddedDatabase,
    verifyScopedKey: (key, scope) => verifyApiKey(opts.prisma, key, scope),
    rateLimit: opts.rateLimit,
  });
}

/** Before a data plane installs its authenticator, every call is refused (fail closed). */
const REFUSE_ALL = createAuthenticator({
  apiKey: undefined,
  allowAnonymousWithoutKey: false,
  rateLimit: { defaultLimit: { perSecond: 0, burst: 0 }, overrides: new Map() },
});

// The data plane's own routes take their authenticator as a dependency; this slot serves the
// routes built without one (lib/gateway's execute routes), which read it through authenticateRequest.
let current: TAuthenticator = REFUSE_ALL;

/** Installs the process's authenticator for routes built without one (startDataPlane does, with its own). */
export function setAuthenticator(auth: TAuthenticator): void {
  current = auth;
}

export function authenticateRequest(req: IncomingMessage, scope: TApiKeyScope): Promise<TAuthResult> {
  return current(req, scope);
}
