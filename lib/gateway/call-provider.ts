import { classifyStatus, parseRateLimit } from "./classify";
import type { TProviderAdapterConfig } from "./config";
import { credentialHostProblem, resolveCredential } from "./credentials";
import { parseJsonBody } from "./adapters/json-body";
import { MissingInputError } from "./adapters/template";
import { sendUpstream } from "./upstream";
import { wrongContentType } from "./protocol-check";
import { AttemptError, type TGatewayRequest, type TGatewayResult, type TRateLimitHint, type TUpstreamRequest } from "./types";

/** An attempt that never reached the provider (its credential is not available): skip it, count nothing against it. */
export class NotCalledError extends Error {}

export type TCallResult = { result: TGatewayResult; rateLimit: TRateLimitHint | null };

/** The credential and upstream request for one attempt; the credential never leaves this call chain. */
export function buildUpstream(
  cfg: TProviderAdapterConfig,
  req: TGatewayRequest,
  env: Readonly<Record<string, string | undefined>>,
  stream: boolean,
): { up: TUpstreamRequest; credential: string | null } {
  const cred = resolveCredential(cfg.credentialRef, env);
  if (!cred.ok) throw new NotCalledError(cred.reason);
  const up = cfg.adapter.build(req, cred.value, stream);
  // Checked on the URL actually built, so no base URL or path template sends a credential elsewhere.
  const elsewhere = credentialHostProblem(cfg.credentialRef, up.url, env);
  if (elsewhere) throw new NotCalledError(elsewhere);
  return { up, credential: cred.value };
}

/** Removes the credential from anything a provider sends back (some echo the key in error bodies). */
export function redact<T>(value: T, credential: string | null): T {
  if (credential === null || credential.length < 4 || value === undefined) return value;
  const text = JSON.stringify(value);
  if (!text.includes(credential)) return value;
  return JSON.parse(text.split(credential).join("[redacted]")) as T;
}

/** One non-streaming attempt: build, send, classify; throws AttemptError, NotCalledError or MissingInputError. */
export async function callProvider(
  cfg: TProviderAdapterConfig,
  req: TGatewayRequest,
  timeoutMs: number,
  env: Readonly<Record<string, string | undefined>>,
  now: () => number,
): Promise<TCallResult> {
  const { up, credential } = buildUpstream(cfg, req, env, false);
  const res = await sendUpstream(up, timeoutMs);
  const rateLimit = parseRateLimit(res.headers, now());
  if (res.status < 200 || res.status >= 300) {
    let body: unknown;
    try {
      body = parseJsonBody(res.body, res.status);
    } catch {
      body = res.body.toString("utf8").slice(0, 4096);
    }
    throw classifyStatus(res.status, res.headers, redact(body, credential), now());
  }
  // Chat adapters read one JSON shape; the generic adapter takes whatever JSON API it was given.
  const wrong = cfg.adapter.chat ? wrongContentType(res.headers, "json", res.status) : null;
  if (wrong) throw wrong;
  const body = parseJsonBody(res.body, res.status);
  return { result: redact(cfg.adapter.parse(res.status, body), credential), rateLimit };
}

export { AttemptError, MissingInputError };
