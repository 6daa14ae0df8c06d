import { randomBytes } from "node:crypto";
import { ServerResponse, type IncomingMessage, type OutgoingHttpHeader, type OutgoingHttpHeaders } from "node:http";

/** Request header carrying the page's CSP nonce to the root layout (set here on every request, so a client cannot choose it). */
export const NONCE_HEADER = "x-switchyard-nonce";

export type TSecurityHeaderOptions = {
  /** Next's development server evaluates code and opens a websocket for hot reload. */
  dev: boolean;
  /** The public URL is https (SWITCHYARD_PUBLIC_URL): browsers are told to keep to https. */
  https: boolean;
};

/** For everything: JSON, text and HTML alike (securityHeaders adds them to every response). */
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

type THeadersArg = OutgoingHttpHeaders | OutgoingHttpHeader[] | undefined;

/** Whether any key of a writeHead headers argument passes `test`, in any of node's three shapes. */
function someKey(given: THeadersArg, test: (key: unknown) => boolean): boolean {
  if (!given) return false;
  if (!Array.isArray(given)) {
    for (const key in given) if (test(key)) return true;
    return false;
  }
  // [[name, value], …] or the flat [name, value, name, value, …].
  if (given.length > 0 && Array.isArray(given[0])) return (given as unknown as OutgoingHttpHeader[][]).some((pair) => test(pair[0]));
  for (let i = 0; i < given.length; i += 2) if (test(given[i])) return true;
  return false;
}

/**
 * What sets the security headers on a response: called once per request, before the handler. It
 * puts `headers` on the response as its head is written (an implicit head too: node writes it
 * through writeHead), except those the handler set itself (the console's per-request CSP). Setting
 * them with setHeader before the handler, as before, made every head take node's slower path,
 * which merges a handler's headers one setHeader at a time; a subclass of ServerResponse cost
 * more still (bench/api/README.md).
 */
export function securityHeaders(headers: readonly [string, string][]): (res: ServerResponse) => void {
  const flat: string[] = headers.flat();
  const names = new Set(headers.map(([name]) => name));
  const lengths = new Set(headers.map(([name]) => name.length));
  /** One of `headers`' names in any case; only a key as long as one of them is lower-cased (content-type and the like differ in length). */
  const isSecurityHeader = (key: unknown): boolean => typeof key === "string" && lengths.has(key.length) && (names.has(key) || names.has(key.toLowerCase()));
  // Node's own, called with whichever of its two signatures the handler used.
  const writeHead = ServerResponse.prototype.writeHead as (this: ServerResponse, ...args: unknown[]) => ServerResponse;

  /** The handler's headers with all of `headers` added, in a shape node takes directly; null when it names one of them. */
  function withAll(given: THeadersArg): OutgoingHttpHeaders | OutgoingHttpHeader[] | null {
    if (!given) return flat;
    if (someKey(given, isSecurityHeader)) return null;
    if (!Array.isArray(given)) {
      // A flat list built by pushes: Object.entries and spreads cost what skipping setHeader saved.
      const out: OutgoingHttpHeader[] = [];
      for (const key in given) out.push(key, given[key]!);
      for (const v of flat) out.push(v);
      return out;
    }
    return given.length > 0 && Array.isArray(given[0]) ? [...given, ...headers] : given.concat(flat);
  }

  /** Only the ones neither set nor given by the handler, set one at a time (node merges the handler's). */
  function addMissing(res: ServerResponse, given: THeadersArg): void {
    for (const [name, value] of headers) {
      if (!res.hasHeader(name) && !someKey(given, (key) => typeof key === "string" && key.toLowerCase() === name)) res.setHeader(name, value);
    }
  }

  function securedWriteHead(
    this: ServerResponse,
    statusCode: number,
    reason?: string | OutgoingHttpHeaders | OutgoingHttpHeader[],
    obj?: OutgoingHttpHeaders | OutgoingHttpHeader[],
  ): ServerResponse {
    const message = typeof reason === "string" ? reason : undefined;
    const given = message === undefined ? ((reason as THeadersArg) ?? obj) : obj;
    let all: THeadersArg = given;
    // Once sent, the head is node's to refuse (ERR_HTTP_HEADERS_SENT).
    if (!this.headersSent) {
      let set = false;
      for (let i = 0; i < headers.length && !set; i++) set = this.hasHeader(headers[i]![0]);
      const added = set ? null : withAll(given);
      if (added) all = added;
      else addMissing(this, given);
    }
    return message === undefined ? writeHead.call(this, statusCode, all) : writeHead.call(this, statusCode, message, all);
  }
  return (res) => {
    res.writeHead = securedWriteHead as ServerResponse["writeHead"];
  };
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
