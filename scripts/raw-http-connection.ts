import net from "node:net";

/**
 * One keep-alive HTTP/1.1 client connection over a raw socket, for the benchmarks' load
 * generators: at most one request in flight (no pipelining), its answer parsed as it arrives,
 * framed by content-length or by chunked transfer-encoding.
 *
 * The generators do not use node:http's client: it spent about as much CPU per request as the
 * servers under test (some 120 µs against 48 here), and on a 2-core machine the generator's CPU
 * is taken from the server it measures, so it capped exactly the fastest targets.
 */
export type TRawAnswer = { status: number; body: string };

const CRLF = Buffer.from("\r\n");
const HEADER_END = Buffer.from("\r\n\r\n");
const CONTENT_LENGTH = /\r\ncontent-length:\s*(\d+)/i;
const CHUNKED = /\r\ntransfer-encoding:[^\r]*chunked/i;

export class RawHttpConnection {
  readonly socket: net.Socket;
  private buffered: Buffer | null = null;
  /** -1 until the status line and headers of the current answer are in. */
  private bodyStart = -1;
  /** content-length framing: where the body ends; chunked framing: -1. */
  private end = -1;
  private status = 0;
  /** chunked framing: where the next chunk-size line starts, and the body read so far. */
  private chunkAt = 0;
  private chunks: Buffer[] = [];
  private busy = false;

  /**
   * `onAnswer(null)` reports an answer that could not be framed (the connection is then
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
    this.socket.once("error", () => this.socket.destroy());
  }

  /** Sends one whole request (request line, headers and body). */
  send(request: string): void {
    this.busy = true;
    this.bodyStart = -1;
    this.buffered = null;
    this.socket.write(request);
  }

  private read(chunk: Buffer): void {
    if (!this.busy) return;
    this.buffered = this.buffered === null ? chunk : Buffer.concat([this.buffered, chunk]);
    const buf = this.buffered;
    if (this.bodyStart < 0) {
      const at = buf.indexOf(HEADER_END);
      if (at < 0) return;
      const header = buf.toString("latin1", 0, at);
      this.status = Number(header.slice(9, 12));
      this.bodyStart = at + HEADER_END.length;
      const length = CONTENT_LENGTH.exec(header);
      if (length) this.end = this.bodyStart + Number(length[1]);
      else if (CHUNKED.test(header)) {
        this.end = -1;
        this.chunkAt = this.bodyStart;
        this.chunks = [];
      } else return this.fail();
    }
    if (this.end >= 0) {
      if (buf.length < this.end) return;
      return this.settle({ status: this.status, body: this.keepBody ? buf.toString("utf8", this.bodyStart, this.end) : "" });
    }
    // Chunked: size line, data, CRLF; a zero size ends the body (after optional trailers and an empty line).
    for (;;) {
      const lineEnd = buf.indexOf(CRLF, this.chunkAt);
      if (lineEnd < 0) return;
      const size = parseInt(buf.toString("latin1", this.chunkAt, lineEnd), 16);
      if (!Number.isFinite(size)) return this.fail();
      if (size === 0) {
        if (buf.indexOf(HEADER_END, lineEnd) < 0) return;
        return this.settle({ status: this.status, body: this.keepBody ? Buffer.concat(this.chunks).toString("utf8") : "" });
      }
      const dataEnd = lineEnd + 2 + size;
      if (buf.length < dataEnd + 2) return;
      if (this.keepBody) this.chunks.push(buf.subarray(lineEnd + 2, dataEnd));
      this.chunkAt = dataEnd + 2;
    }
  }

  private settle(answer: TRawAnswer): void {
    this.busy = false;
    this.buffered = null;
    this.chunks = [];
    this.onAnswer(answer);
  }

  private fail(): void {
    this.busy = false;
    this.onAnswer(null);
    this.socket.destroy();
  }
}

/** The request line and headers every request of a run shares; `requestText` adds its length and body. */
export function requestHead(method: string, port: number, path: string, headers: Record<string, string>): string {
  return `${method} ${path} HTTP/1.1\r\nhost: 127.0.0.1:${port}\r\n` + Object.entries(headers).map(([k, v]) => `${k}: ${v}\r\n`).join("");
}

export function requestText(head: string, body: string): string {
  return `${head}content-length: ${Buffer.byteLength(body)}\r\n\r\n${body}`;
}
