import type { IncomingHttpHeaders } from "node:http";
import net from "node:net";
import tls from "node:tls";
import type { TAddressPolicy } from "./address-policy";
import { guardedLookup, literalRefusal } from "./guarded-lookup";

/**
 * A small HTTP/1.1 client for the gateway's whole (non-streaming) provider calls: keep-alive
 * connection pools per origin over net or tls sockets, one request in flight per connection, the
 * request written in one piece and the answer framed by content-length, chunked
 * transfer-encoding or the end of the connection.
 *
 * Why not node:http's client: it costs markedly more CPU per call than a raw keep-alive
 * connection, and the call is most of what execute mode does besides deciding (figures: README.md).
 * Streamed answers (SSE) still go through node:http (upstream.ts), where the per-chunk work dominates.
 */
export type THttp1Response = { status: number; headers: IncomingHttpHeaders; body: Buffer };

export type THttp1Request = { url: string; method: string; headers: Readonly<Record<string, string>>; body: string | null };

/** A transport or protocol failure; `code` is Node's socket error code or one of this client's (ECONNRESET for a cut answer, HPE_* for an unreadable one). */
export class Http1Error extends Error {
  constructor(
    message: string,
    readonly code: string,
  ) {
    super(message);
  }
}

export type THttp1ClientOptions = {
  /** Connections per origin; requests beyond wait for one to come free. */
  maxConnectionsPerOrigin?: number;
  /** An idle connection is closed after this long (servers close theirs too; a shorter wait avoids reusing a connection the server is closing). */
  idleTimeoutMs?: number;
  /** Answers larger than this fail (HPE_BODY_TOO_LARGE) instead of filling memory. */
  maxBodyBytes?: number;
  /** Extra trusted certificates for TLS (tests); the system's otherwise. */
  ca?: string | Buffer;
  /** Where connections may go (address-policy.ts): a literal IP is checked before connecting, a name in the socket's own lookup. None: anywhere. */
  addressPolicy?: () => TAddressPolicy;
};

const MAX_HEADER_BYTES = 64 * 1024;
const HEADER_END = Buffer.from("\r\n\r\n");
const CRLF = Buffer.from("\r\n");
const STATUS_LINE = /^HTTP\/1\.([01]) (\d{3})(?: [^\r\n]*)?$/;

type TFraming = "length" | "chunked" | "close" | "none";

/**
 * Parses one answer (after any 1xx interim answers) from the bytes pushed to it. `push` returns
 * true once the answer is complete; bytes after it are unexpected (one request per connection
 * at a time) and make the connection unusable (`extra`).
 */
export class Http1ResponseParser {
  status = 0;
  headers: IncomingHttpHeaders = {};
  keepAlive = false;
  extra = false;
  private buffer: Buffer | null = null;
  private headDone = false;
  private framing: TFraming = "none";
  private remaining = 0;
  private chunks: Buffer[] = [];
  private bodyBytes = 0;
  /** chunked: reading a size line, chunk data, the CRLF after it, or the trailers. */
  private chunkState: "size" | "data" | "data-end" | "trailers" = "size";

  constructor(
    private readonly noBody: boolean,
    private readonly maxBodyBytes: number,
  ) {}

  get body(): Buffer {
    return this.chunks.length === 1 ? this.chunks[0]! : Buffer.concat(this.chunks);
  }

  push(chunk: Buffer): boolean {
    let data = this.buffer === null ? chunk : Buffer.concat([this.buffer, chunk]);
    this.buffer = null;
    while (!this.headDone) {
      const at = data.indexOf(HEADER_END);
      if (at < 0) {
        if (data.length > MAX_HEADER_BYTES) throw new Http1Error("the provider's answer headers are too large", "HPE_HEADER_OVERFLOW");
        this.buffer = data;
        return false;
      }
      this.head(data.toString("latin1", 0, at));
      data = data.subarray(at + HEADER_END.length);
      // A 1xx answer is interim: the real one follows on the same connection.
      if (this.status >= 100 && this.status < 200) {
        this.headers = {};
        continue;
      }
      this.headDone = true;
    }
    return this.bodyPart(data);
  }

  /** The connection ended: completes a close-delimited body (never kept alive), else the answer was cut. */
  end(): boolean {
    return this.headDone && this.framing === "close";
  }

  private head(text: string): void {
    const lines = text.split("\r\n");
    const m = STATUS_LINE.exec(lines[0]!);
    if (!m)
      throw new Http1Error(
        `the provider's answer does not start with an HTTP/1.x status line: ${JSON.stringify(lines[0]!.slice(0, 80))}`,
        "HPE_INVALID_STATUS",
      );
    const http10 = m[1] === "0";
    this.status = Number(m[2]);
    const headers: IncomingHttpHeaders = {};
    let last: string | null = null;
    for (let i = 1; i < lines.length; i++) {
      const line = lines[i]!;
      if (line.length === 0) continue;
      if ((line[0] === " " || line[0] === "\t") && last !== null) {
        // Obsolete line folding: a continuation of the previous value.
        const prev = headers[last];
        if (typeof prev === "string") headers[last] = `${prev} ${line.trim()}`;
        continue;
      }
      const colon = line.indexOf(":");
      if (colon <= 0) throw new Http1Error(`malformed header line in the provider's answer: ${JSON.stringify(line.slice(0, 80))}`, "HPE_INVALID_HEADER_TOKEN");
      const name = line.slice(0, colon).trim().toLowerCase();
      const value = line.slice(colon + 1).trim();
      last = name;
      const prev = headers[name];
      if (name === "set-cookie") headers[name] = [...((prev as string[] | undefined) ?? []), value];
      else if (prev === undefined) headers[name] = value;
      else if (name === "content-length") {
        if (prev !== value) throw new Http1Error("the provider's answer has conflicting content-length headers", "HPE_UNEXPECTED_CONTENT_LENGTH");
      } else headers[name] = `${prev as string}, ${value}`;
    }
    this.headers = headers;
    const connection = (headers.connection ?? "").toLowerCase();
    this.keepAlive = http10 ? connection.includes("keep-alive") : !connection.includes("close");
    if (this.status < 200) return;
    const te = (headers["transfer-encoding"] ?? "").toLowerCase();
    if (this.noBody || this.status === 204 || this.status === 304) this.framing = "none";
    else if (te !== "" && te.split(",").pop()!.trim() === "chunked") this.framing = "chunked";
    else if (te !== "") this.framing = "close";
    else if (headers["content-length"] !== undefined) {
      const n = Number(headers["content-length"]);
      if (!Number.isSafeInteger(n) || n < 0 || !/^\d+$/.test(headers["content-length"]))
        throw new Http1Error(`invalid content-length ${JSON.stringify(headers["content-length"])}`, "HPE_INVALID_CONTENT_LENGTH");
      if (n > this.maxBodyBytes) throw new Http1Error(`the provider's answer is ${n} bytes, over the ${this.maxBodyBytes}-byte limit`, "HPE_BODY_TOO_LARGE");
      this.framing = "length";
      this.remaining = n;
    } else this.framing = "close";
    if (this.framing === "close") this.keepAlive = false;
  }

  private take(part: Buffer): void {
    this.bodyBytes += part.length;
    if (this.bodyBytes > this.maxBodyBytes) throw new Http1Error(`the provider's answer is over the ${this.maxBodyBytes}-byte limit`, "HPE_BODY_TOO_LARGE");
    if (part.length > 0) this.chunks.push(part);
  }

  private bodyPart(data: Buffer): boolean {
    switch (this.framing) {
      case "none":
        this.extra = data.length > 0;
        return true;
      case "close":
        this.take(data);
        return false;
      case "length": {
        const n = Math.min(this.remaining, data.length);
        this.take(data.subarray(0, n));
        this.remaining -= n;
        this.extra = data.length > n;
        return this.remaining === 0;
      }
      case "chunked":
        return this.chunked(data);
    }
  }

  private chunked(input: Buffer): boolean {
    let data = input;
    for (;;) {
      if (this.chunkState === "data") {
        const n = Math.min(this.remaining, data.length);
        this.take(data.subarray(0, n));
        this.remaining -= n;
        data = data.subarray(n);
        if (this.remaining > 0) return false;
        this.chunkState = "data-end";
      }
      if (this.chunkState === "data-end") {
        if (data.length < 2) {
          this.buffer = data.length > 0 ? data : null;
          return false;
        }
        if (data[0] !== 13 || data[1] !== 10) throw new Http1Error("malformed chunked body in the provider's answer", "HPE_INVALID_CHUNK_SIZE");
        data = data.subarray(2);
        this.chunkState = "size";
      }
      if (this.chunkState === "size") {
        const at = data.indexOf(CRLF);
        if (at < 0) {
          if (data.length > 1024) throw new Http1Error("malformed chunk size line in the provider's answer", "HPE_INVALID_CHUNK_SIZE");
          this.buffer = data.length > 0 ? data : null;
          return false;
        }
        const sizeText = data.toString("latin1", 0, at).split(";")[0]!.trim();
        if (!/^[0-9a-fA-F]{1,12}$/.test(sizeText))
          throw new Http1Error(`invalid chunk size ${JSON.stringify(sizeText.slice(0, 20))} in the provider's answer`, "HPE_INVALID_CHUNK_SIZE");
        const size = parseInt(sizeText, 16);
        data = data.subarray(at + 2);
        if (size === 0) this.chunkState = "trailers";
        else {
          this.remaining = size;
          this.chunkState = "data";
          continue;
        }
      }
      // Trailers: header lines up to an empty one (usually none: just CRLF).
      if (data.length >= 2 && data[0] === 13 && data[1] === 10) {
        this.extra = data.length > 2;
        return true;
      }
      const end = data.indexOf(HEADER_END);
      if (end < 0) {
        if (data.length > MAX_HEADER_BYTES) throw new Http1Error("the provider's answer trailers are too large", "HPE_HEADER_OVERFLOW");
        this.buffer = data.length > 0 ? data : null;
        return false;
      }
      this.extra = data.length > end + 4;
      return true;
    }
  }
}

type TOrigin = { secure: boolean; host: string; port: number; hostHeader: string; literal: boolean };

type TExchange = {
  parser: Http1ResponseParser;
  resolve(res: THttp1Response): void;
  reject(err: Error): void;
};

class Connection {
  readonly socket: net.Socket;
  exchange: TExchange | null = null;
  /** Closed for good; the pool has been told once. */
  private retired = false;

  constructor(
    origin: TOrigin,
    opts: { ca?: string | Buffer; lookup?: net.LookupFunction },
    private readonly onFree: (c: Connection, reusable: boolean) => void,
  ) {
    this.socket = origin.secure
      ? tls.connect({
          host: origin.host,
          port: origin.port,
          servername: net.isIP(origin.host) ? undefined : origin.host,
          ALPNProtocols: ["http/1.1"],
          ...(opts.ca ? { ca: opts.ca } : {}),
          ...(opts.lookup ? { lookup: opts.lookup } : {}),
        })
      : net.connect({ host: origin.host, port: origin.port, ...(opts.lookup ? { lookup: opts.lookup } : {}) });
    this.socket.setNoDelay(true);
    this.socket.on("data", (chunk: Buffer) => this.read(chunk));
    this.socket.on("end", () => this.ended());
    this.socket.on("error", (err: Error & { code?: string }) => this.fail(new Http1Error(err.message, err.code ?? "ECONNRESET")));
    this.socket.on("close", () => this.fail(new Http1Error("socket hang up", "ECONNRESET")));
    // Armed only while idle (see the pool): an idle connection past its time is closed.
    this.socket.on("timeout", () => {
      if (!this.exchange) this.retire();
    });
  }

  send(text: string, exchange: TExchange): void {
    this.exchange = exchange;
    this.socket.setTimeout(0);
    this.socket.write(text);
  }

  private read(chunk: Buffer): void {
    const x = this.exchange;
    if (!x) {
      // Bytes nobody asked for: the connection cannot be trusted for the next request.
      this.socket.destroy();
      return;
    }
    let done: boolean;
    try {
      done = x.parser.push(chunk);
    } catch (err) {
      this.fail(err as Error);
      return;
    }
    if (done) this.complete(x, x.parser.keepAlive && !x.parser.extra);
  }

  private ended(): void {
    const x = this.exchange;
    if (x && x.parser.end()) this.complete(x, false);
    else this.fail(new Http1Error("socket hang up", "ECONNRESET"));
  }

  private complete(x: TExchange, reusable: boolean): void {
    this.exchange = null;
    x.resolve({ status: x.parser.status, headers: x.parser.headers, body: x.parser.body });
    if (reusable) this.onFree(this, true);
    else this.retire();
  }

  /** Fails the exchange in flight (if any) and retires the connection. */
  fail(err: Error): void {
    const x = this.exchange;
    this.exchange = null;
    x?.reject(err);
    this.retire();
  }

  private retire(): void {
    if (!this.socket.destroyed) this.socket.destroy();
    if (this.retired) return;
    this.retired = true;
    this.onFree(this, false);
  }
}

type TPool = {
  origin: TOrigin;
  idle: Connection[];
  open: Set<Connection>;
  waiting: Array<(c: Connection) => void>;
  /** A literal-IP origin: the policy it was last found allowed under (policies are cached objects), so the check runs once per policy. */
  allowedUnder: TAddressPolicy | null;
};

export function createHttp1Client(opts: THttp1ClientOptions = {}) {
  const cl: TClient = {
    opts,
    maxConnections: opts.maxConnectionsPerOrigin ?? 512,
    idleTimeoutMs: opts.idleTimeoutMs ?? 4_000,
    maxBodyBytes: opts.maxBodyBytes ?? 32 * 1024 * 1024,
    pools: new Map(),
    parsedUrls: new Map(),
    lookup: opts.addressPolicy ? guardedLookup(opts.addressPolicy) : undefined,
  };
  return {
    /**
     * One exchange within `timeoutMs` (connect, send, whole answer); rejects with an Http1Error
     * (or `onTimeout()`'s error when the time ran out, the connection then closed).
     */
    async request(req: THttp1Request, timeoutMs: number, onTimeout: () => Error): Promise<THttp1Response> {
      const { pool, path } = target(cl, req.url);
      const refused = addressRefused(cl, pool);
      if (refused) throw refused;
      return exchange(cl, pool, req, requestText(req, path, pool.origin.hostHeader), timeoutMs, onTimeout);
    },

    /** Open connections per origin (idle ones included), for tests and diagnostics. */
    connections(): Record<string, number> {
      return Object.fromEntries([...cl.pools].map(([k, p]) => [k, p.open.size]));
    },

    close(): void {
      for (const p of cl.pools.values()) for (const c of p.open) c.socket.destroy();
      cl.pools.clear();
      cl.parsedUrls.clear();
    },
  };
}

/** A client's settings and its pools. */
type TClient = {
  opts: THttp1ClientOptions;
  maxConnections: number;
  idleTimeoutMs: number;
  maxBodyBytes: number;
  pools: Map<string, TPool>;
  /** Provider URL → its origin's pool and the request path: one lookup per request. */
  parsedUrls: Map<string, { pool: TPool; path: string }>;
  lookup: net.LookupFunction | undefined;
};

/** A literal-IP origin the address policy forbids: the error, before any connection is made. */
function addressRefused(cl: TClient, pool: TPool): Http1Error | null {
  if (!cl.opts.addressPolicy || !pool.origin.literal) return null;
  const policy = cl.opts.addressPolicy();
  if (pool.allowedUnder === policy) return null;
  const refused = literalRefusal(pool.origin.host, policy);
  if (refused) return new Http1Error(refused.message, refused.code);
  pool.allowedUnder = policy;
  return null;
}

function target(cl: TClient, url: string): { pool: TPool; path: string } {
  const known = cl.parsedUrls.get(url);
  if (known) return known;
  const u = new URL(url);
  if (u.protocol !== "http:" && u.protocol !== "https:") throw new Http1Error(`unsupported protocol ${u.protocol} in ${url}`, "ERR_INVALID_PROTOCOL");
  const secure = u.protocol === "https:";
  const port = u.port ? Number(u.port) : secure ? 443 : 80;
  const host = u.hostname.startsWith("[") ? u.hostname.slice(1, -1) : u.hostname;
  const t = {
    pool: poolFor(cl, `${u.protocol}//${u.host}`, { secure, host, port, hostHeader: u.host, literal: net.isIP(host) !== 0 }),
    path: `${u.pathname}${u.search}`,
  };
  // Provider URLs are few and fixed; a bound keeps templated ones from growing the map without end.
  if (cl.parsedUrls.size >= 1_000) cl.parsedUrls.clear();
  cl.parsedUrls.set(url, t);
  return t;
}

function poolFor(cl: TClient, key: string, origin: TOrigin): TPool {
  let p = cl.pools.get(key);
  if (!p) {
    p = { origin, idle: [], open: new Set(), waiting: [], allowedUnder: null };
    cl.pools.set(key, p);
  }
  return p;
}

function connect(cl: TClient, pool: TPool): Connection {
  const c = new Connection(pool.origin, { ca: cl.opts.ca, lookup: cl.lookup }, (conn, reusable) => freed(cl, pool, conn, reusable));
  pool.open.add(c);
  return c;
}

function freed(cl: TClient, pool: TPool, c: Connection, reusable: boolean): void {
  if (!reusable || c.socket.destroyed) {
    pool.open.delete(c);
    const at = pool.idle.indexOf(c);
    if (at >= 0) pool.idle.splice(at, 1);
    const next = pool.waiting.shift();
    if (next) next(connect(cl, pool));
    return;
  }
  const next = pool.waiting.shift();
  if (next) {
    next(c);
    return;
  }
  c.socket.setTimeout(cl.idleTimeoutMs);
  pool.idle.push(c);
}

function acquire(cl: TClient, pool: TPool): Promise<Connection> | Connection {
  while (pool.idle.length > 0) {
    const c = pool.idle.pop()!;
    if (!c.socket.destroyed) return c;
    pool.open.delete(c);
  }
  if (pool.open.size < cl.maxConnections) return connect(cl, pool);
  return new Promise((resolve) => pool.waiting.push(resolve));
}

/** The request as written on the wire, in one piece. */
function requestText(req: THttp1Request, path: string, hostHeader: string): string {
  let head = `${req.method} ${path} HTTP/1.1\r\nhost: ${hostHeader}\r\n`;
  for (const name in req.headers) {
    const value = req.headers[name]!;
    if (/[\r\n]/.test(name) || /[\r\n]/.test(value)) throw new Http1Error(`header ${JSON.stringify(name)} holds a line break`, "ERR_INVALID_CHAR");
    const lower = name.toLowerCase();
    if (lower === "host" || lower === "content-length" || lower === "transfer-encoding" || lower === "connection") continue;
    head += `${name}: ${value}\r\n`;
  }
  return req.body === null ? `${head}\r\n` : `${head}content-length: ${Buffer.byteLength(req.body)}\r\n\r\n${req.body}`;
}

/**
 * One request's wait for its answer: settles once, with the answer, a failure or the timeout. A
 * class rather than closures made per request: tsx wraps each arrow it can name in a
 * defineProperty call per creation (lib/gateway/README.md, "Closures on the hot path").
 */
class Exchange implements TExchange {
  readonly parser: Http1ResponseParser;
  private settled = false;
  private conn: Connection | null = null;
  /** Timed out before a connection came free: the connection goes back unused. */
  private abandoned = false;
  private readonly timer: NodeJS.Timeout;

  constructor(
    private readonly cl: TClient,
    private readonly pool: TPool,
    private readonly text: string,
    head: boolean,
    timeoutMs: number,
    private readonly onTimeout: () => Error,
    private readonly done: (res: THttp1Response) => void,
    private readonly failed: (err: Error) => void,
  ) {
    this.parser = new Http1ResponseParser(head, cl.maxBodyBytes);
    this.timer = setTimeout(() => this.timeout(), timeoutMs);
  }

  private timeout(): void {
    if (this.settled) return;
    this.settled = true;
    const err = this.onTimeout();
    this.failed(err);
    // The answer may still be on its way: this connection cannot serve another request.
    if (this.conn) this.conn.fail(err);
    else this.abandoned = true;
  }

  resolve(res: THttp1Response): void {
    clearTimeout(this.timer);
    if (this.settled) return;
    this.settled = true;
    this.done(res);
  }

  reject(err: Error): void {
    clearTimeout(this.timer);
    if (this.settled) return;
    this.settled = true;
    this.failed(err);
  }

  /** Writes the request on `c`, or gives `c` back when the wait already timed out. */
  start(c: Connection): void {
    if (this.abandoned) {
      freed(this.cl, this.pool, c, !c.socket.destroyed);
      return;
    }
    this.conn = c;
    c.send(this.text, this);
  }
}

/** Sends `text` on a connection of the pool and settles with its answer, or on the timeout. */
function exchange(cl: TClient, pool: TPool, req: THttp1Request, text: string, timeoutMs: number, onTimeout: () => Error): Promise<THttp1Response> {
  return new Promise<THttp1Response>((resolve, reject) => {
    const x = new Exchange(cl, pool, text, req.method === "HEAD", timeoutMs, onTimeout, resolve, reject);
    const got = acquire(cl, pool);
    if (got instanceof Connection) x.start(got);
    else void got.then((c) => x.start(c));
  });
}

export type Http1Client = ReturnType<typeof createHttp1Client>;
