import { createHash, timingSafeEqual } from "node:crypto";
import type { IncomingMessage } from "node:http";
import type { TErrorBody } from "./http";

/**
 * Who is calling the data plane. Until governance's scoped API keys land there is one key from
 * SWITCHYARD_API_KEY; the principal shape is what route code reads, so swapping the
 * implementation (key lookup by prefix, scopes per operation) changes nothing downstream.
 */
export type TPrincipal = { kind: "environment_key" | "anonymous"; id: string };

export type TAuthResult = { ok: true; principal: TPrincipal } | { ok: false; status: number; body: TErrorBody; headers?: Record<string, string> };

export type TAuthenticator = (req: IncomingMessage) => Promise<TAuthResult>;

export type TAuthOptions = {
  /** The one accepted bearer key; undefined or empty means none is configured. */
  apiKey: string | undefined;
  /** With no key configured: true lets every call through (the embedded-database demo), false refuses all. */
  allowAnonymousWithoutKey: boolean;
};

const digest = (s: string) => createHash("sha256").update(s).digest();

function deny(status: number, code: string, message: string): TAuthResult {
  return { ok: false, status, body: { error: { code, message, field: "authorization" } }, headers: { "www-authenticate": 'Bearer realm="switchyard"' } };
}

const ANONYMOUS: TAuthResult = { ok: true, principal: { kind: "anonymous", id: "anonymous" } };
const ENV_PRINCIPAL: TAuthResult = { ok: true, principal: { kind: "environment_key", id: "env:SWITCHYARD_API_KEY" } };

export function createAuthenticator(opts: TAuthOptions): TAuthenticator {
  const key = opts.apiKey ? digest(opts.apiKey) : null;
  return async (req) => {
    if (!key) {
      // Fail closed outside the demo: a production deployment without a key must not be open.
      return opts.allowAnonymousWithoutKey
        ? ANONYMOUS
        : deny(401, "unauthenticated", "no API key is configured on this server (set SWITCHYARD_API_KEY)");
    }
    const header = req.headers.authorization;
    if (!header) return deny(401, "unauthenticated", "missing Authorization: Bearer <api key>");
    const m = /^Bearer\s+(.+)$/i.exec(header);
    if (!m) return deny(401, "unauthenticated", "Authorization must be Bearer <api key>");
    // Comparing digests keeps the comparison constant-time whatever the presented length.
    return timingSafeEqual(digest(m[1]!.trim()), key) ? ENV_PRINCIPAL : deny(401, "unauthenticated", "invalid API key");
  };
}

let current: TAuthenticator = createAuthenticator({ apiKey: process.env.SWITCHYARD_API_KEY, allowAnonymousWithoutKey: false });

/** Installs the process's authenticator (the data plane does at start, from its options). */
export function setAuthenticator(auth: TAuthenticator): void {
  current = auth;
}

export function authenticateRequest(req: IncomingMessage): Promise<TAuthResult> {
  return current(req);
}
