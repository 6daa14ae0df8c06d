import net from "node:net";
import { Http1ResponseParser } from "../../lib/gateway/http1-client";

/**
 * One keep-alive HTTP/1.1 client connection over a raw socket, for the benchmarks' load
 * generators: at most one request in flight (no pipelining), its answer parsed as it arrives,
 * framed by content-length or by chunked transfer-encoding.
 *
 * The generators do not use node:http's client: it spent about as much CPU per request as the
 * servers under test, and on a 2-core machine the generator's CPU is taken from the server it
 * measures, so it capped exactly the fastest targets. Answers are
 * read by the gateway's own HTTP/1.1 response parser (lib/gateway/http1-client.ts); `body` holds
 * the answer's bytes when the connection keeps them, else nothing.
 */
export type TRawAnswer = { status: number; body: Buffer };

const EMPTY = Buffer.alloc(0);

/**
 * The `length` characters after `prefix` when the body starts with it (a decision id after
 * '{"decisionId":"'), read off the bytes without decoding the whole answer. Null otherwise.
 */
export function textAfter(body: Buffer, prefix: Buffer, length: number): string | null {
  if (body.length < prefix.length + length || body.compare(prefix, 0, prefix.length, 0, prefix.length) !== 0) return null;
  return body.toString("latin1", prefix.length, prefix.length + length);
}

/** Answers larger than this count as errors (the benchmarks' answers are a few KB). */
const MAX_ANSWER_BYTES = 16 * 1024 * 1024;

export class RawHttpConnection {
  readonly socket: net.Socket;
  /** The answer being read (the gateway's HTTP/1.1 response parser); null while idle. */
  private parser: Http1ResponseParser | null = null;

  /**
   * `onAnswer(null)` reports an answer that could not be read (the connection is then
   * destroyed); `keepBody: false` skips decoding bodies the caller never reads.
   */
  constructor(
    port: number,
    private readonly onAnswer: (answer: TRawAnswer | null) => void,
    private readonly keepBody: boolean,
  ) {
    this.socket = net.connect({ host: "127.0.0.1", port });
    this.socket.setNoDelay(true);
    this.socket.on("data", (chunk: Buffer) => this.read(chunk));
    this.socket.on("end", () => {
      if (this.parser?.end()) this.settle();
    });
    this.socket.once("error", () => this.socket.destroy());
  }

  /** Sends one whole request (request line, headers and body). */
  send(request: string): void {
    this.parser = new Http1ResponseParser(false, MAX_ANSWER_BYTES);
    this.socket.write(request);
  }

  private read(chunk: Buffer): void {
    if (!this.parser) return;
    let done: boolean;
    try {
      done = this.parser.push(chunk);
    } catch {
      this.parser = null;
      this.onAnswer(null);
      this.socket.destroy();
      return;
    }
    if (done) this.settle();
  }

  private settle(): void {
    const p = this.parser!;
    this.parser = null;
    this.onAnswer({ status: p.status, body: this.keepBody ? p.body : EMPTY });
  }
}

/** The request line and headers every request of a run shares; `requestText` adds its length and body. */
export function requestHead(method: string, port: number, path: string, headers: Record<string, string>): string {
  return (
    `${method} ${path} HTTP/1.1\r\nhost: 127.0.0.1:${port}\r\n` +
    Object.entries(headers)
      .map(([k, v]) => `${k}: ${v}\r\n`)
      .join("")
  );
}

export function requestText(head: string, body: string): string {
  return `${head}content-length: ${Buffer.byteLength(body)}\r\n\r\n${body}`;
}
