import { EventEmitter } from "node:events";
import type { IncomingHttpHeaders, IncomingMessage, ServerResponse } from "node:http";
import { Readable } from "node:stream";

/**
 * The OpenAI surface hands each chat completion to execute's own route handler, in process: a
 * request built from the translated body plus the caller's credentials and idempotency key, and
 * a response object that collects what execute answers. Failover, budgets, idempotency, auth,
 * rate limits and the decision log are therefore execute's, by construction, and only execute's
 * HTTP contract couples the two.
 */
export function executeRequest(operation: string, body: unknown, headers: IncomingHttpHeaders): IncomingMessage {
  const payload = Buffer.from(JSON.stringify(body), "utf8");
  const req = new Readable({ read() {} }) as Readable & Partial<IncomingMessage>;
  req.push(payload);
  req.push(null);
  const h: IncomingHttpHeaders = { "content-type": "application/json", "content-length": String(payload.length) };
  for (const name of ["authorization", "idempotency-key", "x-forwarded-for", "user-agent"]) {
    const v = headers[name];
    if (v !== undefined) h[name] = v;
  }
  Object.assign(req, {
    headers: h,
    method: "POST",
    url: `/api/v1/execute/${encodeURIComponent(operation)}`,
    httpVersion: "1.1",
    aborted: false,
    complete: true,
  });
  return req as unknown as IncomingMessage;
}

export type TCaptureSink = {
  /** Execute opened a Server-Sent Events answer with these headers. */
  streamStart(status: number, headers: Record<string, string>): void;
  /** A piece of execute's event stream. */
  streamData(text: string): void;
  streamEnd(): void;
};

/**
 * What execute's handler writes: a JSON answer is kept whole; an event stream goes to `sink` as
 * it comes. Implements the part of ServerResponse the handler and the data plane's helpers use.
 */
export class CapturedResponse extends EventEmitter {
  statusCode = 200;
  headersSent = false;
  writableFinished = false;
  writableEnded = false;
  destroyed = false;
  headers: Record<string, string> = {};
  private streaming = false;
  private chunks: Buffer[] = [];

  constructor(private readonly sink: TCaptureSink) {
    super();
  }

  setHeader(name: string, value: string | number | readonly string[]): this {
    this.headers[name.toLowerCase()] = Array.isArray(value) ? value.join(", ") : String(value);
    return this;
  }

  getHeader(name: string): string | undefined {
    return this.headers[name.toLowerCase()];
  }

  writeHead(status: number, headers?: Record<string, string | number | readonly string[]>): this {
    this.statusCode = status;
    for (const [k, v] of Object.entries(headers ?? {})) this.setHeader(k, v);
    this.headersSent = true;
    this.streaming = (this.headers["content-type"] ?? "").startsWith("text/event-stream");
    if (this.streaming) this.sink.streamStart(status, this.headers);
    return this;
  }

  write(data: string | Buffer): boolean {
    if (!this.headersSent) this.writeHead(this.statusCode);
    if (this.streaming) this.sink.streamData(typeof data === "string" ? data : data.toString("utf8"));
    else this.chunks.push(typeof data === "string" ? Buffer.from(data, "utf8") : data);
    return true;
  }

  end(data?: string | Buffer): this {
    if (this.writableEnded) return this;
    if (data !== undefined) this.write(data);
    else if (!this.headersSent) this.writeHead(this.statusCode);
    this.writableEnded = true;
    this.writableFinished = true;
    if (this.streaming) this.sink.streamEnd();
    this.emit("finish");
    this.emit("close");
    return this;
  }

  destroy(): this {
    if (this.destroyed) return this;
    this.destroyed = true;
    this.emit("close");
    return this;
  }

  /** The caller hung up: execute's stream stops its upstream call as it would for a real socket. */
  clientGone(): void {
    if (!this.writableFinished) this.destroy();
  }

  get isStream(): boolean {
    return this.streaming;
  }

  body(): string {
    return Buffer.concat(this.chunks).toString("utf8");
  }

  asServerResponse(): ServerResponse {
    return this as unknown as ServerResponse;
  }
}
