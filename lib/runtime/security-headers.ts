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

/**
 * Whether `key` is one of `names` (lower case) in any case. Only a key as long as one of them is
 * lower-cased: the others (content-type, content-length…) are told apart by length alone.
 */
function isOneOf(key: unknown, names: ReadonlySet<string>, lengths: ReadonlySet<number>): boolean {
  return typeof key === "string" && lengths.has(key.length) && (names.has(key) || names.has(key.toLowerCase()));
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
  // Node's own, called with whichever of its two signatures the handler used.
  const writeHead = ServerResponse.prototype.writeHead as (this: ServerResponse, ...args: unknown[]) => ServerResponse;

  /** The handler's headers as a flat list with `headers` added; null when it names one of them (then it keeps its own). */
  function withAll(given: THeadersArg): OutgoingHttpHeader[] | null {
    if (!given) return flat;
    const out: OutgoingHttpHeader[] = [];
    if (!Array.isArray(given)) {
      for (const key in given) {
        if (isOneOf(key, names, lengths)) return null;
        out.push(key, given[key]!);
      }
    } else if (given.length > 0 && Array.isArray(given[0])) {
      for (const pair of given as unknown as OutgoingHttpHeader[][]) {
        if (isOneOf(pair[0], names, lengths)) return null;
        out.push(pair[0]!, pair[1]!);
      }
    } else {
      for (let i = 0; i < given.length; i += 2) if (isOneOf(given[i], names, lengths)) return null;
      return given.concat(flat);
    }
    for (const v of flat) out.push(v);
    return out;
  }

  /** Only the ones neither set nor given by the handler, set one at a time (node merges the handler's). */
  function addMissing(res: ServerResponse, given: THeadersArg): void {
    const named = (name: string) => {
      if (!given) return false;
      if (!Array.isArray(given)) return Object.keys(given).some((key) => key.toLowerCase() === name);
      const keys =
        given.length > 0 && Array.isArray(given[0]) ? (given as unknown as OutgoingHttpHeader[][]).map((p) => p[0]) : given.filter((_, i) => i % 2 === 0);
      return keys.some((key) => String(key).toLowerCase() === name);
    };
    for (const [name, value] of headers) if (!res.hasHeader(name) && !named(name)) res.setHeader(name, value);
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
