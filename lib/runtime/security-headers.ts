import { randomBytes } from "node:crypto";
import type { IncomingMessage, ServerResponse } from "node:http";

/** Request header carrying the page's CSP nonce to the root layout (set here on every request, so a client cannot choose it). */
export const NONCE_HEADER = "x-switchyard-nonce";

export type TSecurityHeaderOptions = {
  /** Next's development server evaluates code and opens a websocket for hot reload. */
  dev: boolean;
  /** The public URL is https (SWITCHYARD_PUBLIC_URL): browsers are told to keep to https. */
  https: boolean;
};

/** For everything: JSON, text and HTML alike. Set on the response before any handler runs. */
export function commonSecurityHeaders(opts: TSecurityHeaderOptions): [string, string][] {
  return [
    ["x-content-type-options", "nosniff"],
    ["x-frame-options", "DENY"],
    ["referrer-policy", "no-referrer"],
    ...(opts.https ? ([["strict-transport-security", "max-age=31536000; includeSubDomains"]] as [string, string][]) : []),
  ];
}

/** The data plane answers JSON and Prometheus text: nothing in it may load, run or be framed. */
export const API_CSP = "default-src 'none'; frame-ancestors 'none'; base-uri 'none'; form-action 'none'";

/**
 * The console's policy: scripts only with this response's nonce (Next puts it on every script
 * it renders when the request carries the policy) and what those load ('strict-dynamic');
 * inline style attributes stay allowed because Recharts positions its elements with them.
 */
export function consoleCsp(nonce: string, dev: boolean): string {
  return [
    "default-src 'self'",
    `script-src 'self' 'nonce-${nonce}' 'strict-dynamic'${dev ? " 'unsafe-eval'" : ""}`,
    "style-src 'self' 'unsafe-inline'",
    "img-src 'self' data: blob:",
    "font-src 'self' data:",
    `connect-src 'self'${dev ? " ws: wss:" : ""}`,
    "object-src 'none'",
    "base-uri 'none'",
    "form-action 'self'",
    "frame-ancestors 'none'",
  ].join("; ");
}

export function applyCommonSecurityHeaders(res: ServerResponse, headers: readonly [string, string][]): void {
  for (const [name, value] of headers) res.setHeader(name, value);
}

/**
 * A fresh nonce per request handed to Next: the policy goes on the response, and on the request
 * too, which is where Next reads the nonce it stamps on its scripts.
 */
export function applyConsoleCsp(req: IncomingMessage, res: ServerResponse, dev: boolean): void {
  const nonce = randomBytes(16).toString("base64");
  const csp = consoleCsp(nonce, dev);
  req.headers["content-security-policy"] = csp;
  req.headers[NONCE_HEADER] = nonce;
  res.setHeader("content-security-policy", csp);
}
