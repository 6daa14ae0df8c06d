import net from "node:net";

/** One HTTP/1.1 request as bytes on the wire: nothing is normalised, so it can be as wrong as a fuzzer likes. */
export type TRawRequest = {
  method: string;
  /** Request target exactly as sent (may be malformed). */
  target: string;
  headers: ReadonlyArray<readonly [string, string | Buffer]>;
  body?: Buffer;
  /** false: send no Content-Length (the server must cope); a number: send that one, true or wrong. */
  contentLength?: number | false;
  /** Send the body with Transfer-Encoding: chunked (no Content-Length). */
  chunked?: boolean;
};

export type TRawResponse =
  | { ok: true; status: number; headers: Record<string, string>; body: Buffer; ms: number }
  | { ok: false; reason: "connection_dropped" | "timeout" | "unparseable"; detail: string; ms: number; resetWhileSending: boolean };

function encodeRequest(req: TRawRequest, host: string): Buffer {
  const lines: Buffer[] = [Buffer.from(`${req.method} ${req.target} HTTP/1.1\r\nHost: ${host}\r\nConnection: close\r\n`, "latin1")];
  for (const [name, value] of req.headers)
    lines.push(Buffer.concat([Buffer.from(`${name}: `, "latin1"), typeof value === "string" ? Buffer.from(value, "utf8") : value, Buffer.from("\r\n")]));
  const body = req.body ?? Buffer.alloc(0);
  if (req.chunked) {
    lines.push(Buffer.from("Transfer-Encoding: chunked\r\n\r\n", "latin1"));
    for (let at = 0; at < body.length; at += 64 * 1024) {
      const piece = body.subarray(at, at + 64 * 1024);
      lines.push(Buffer.from(`${piece.length.toString(16)}\r\n`, "latin1"), piece, Buffer.from("\r\n"));
    }
    lines.push(Buffer.from("0\r\n\r\n", "latin1"));
    return Buffer.concat(lines);
  }
  const length = req.contentLength === undefined ? body.length : req.contentLength;
  if (length !== false) lines.push(Buffer.from(`Content-Length: ${length}\r\n`, "latin1"));
  lines.push(Buffer.from("\r\n"));
  lines.push(body);
  return Buffer.concat(lines);
}

function decodeChunked(buf: Buffer): Buffer | null {
  const out: Buffer[] = [];
  let at = 0;
  for (;;) {
    const eol = buf.indexOf("\r\n", at);
    if (eol < 0) return null;
    const size = parseInt(buf.subarray(at, eol).toString("latin1"), 16);
    if (!Number.isFinite(size)) return null;
    if (size === 0) return Buffer.concat(out);
    out.push(buf.subarray(eol + 2, eol + 2 + size));
    at = eol + 2 + size + 2;
  }
}

function parseResponse(raw: Buffer): { status: number; headers: Record<string, string>; body: Buffer } | null {
  const end = raw.indexOf("\r\n\r\n");
  if (end < 0) return null;
  const head = raw.subarray(0, end).toString("latin1").split("\r\n");
  const m = /^HTTP\/1\.[01] (\d{3})/.exec(head[0] ?? "");
  if (!m) return null;
  const headers: Record<string, string> = {};
  for (const line of head.slice(1)) {
    const colon = line.indexOf(":");
    if (colon > 0) headers[line.slice(0, colon).trim().toLowerCase()] = line.slice(colon + 1).trim();
  }
  let body = raw.subarray(end + 4);
  if (headers["transfer-encoding"]?.toLowerCase() === "chunked") body = decodeChunked(body) ?? body;
  else if (headers["content-length"] !== undefined) body = body.subarray(0, Number(headers["content-length"]));
  return { status: Number(m[1]), headers, body };
}

/**
 * Sends one request on a fresh connection and reads until the server closes it. A server that
 * closes without a complete status line has dropped the connection; that is a failure, unlike
 * an error status.
 */
export function sendRaw(port: number, req: TRawRequest, timeoutMs = 15_000): Promise<TRawResponse> {
  const t0 = performance.now();
  return new Promise((resolve) => {
    const chunks: Buffer[] = [];
    let settled = false;
    let resetWhileSending = false;
    let sent = false;
    const socket = net.connect({ host: "127.0.0.1", port });
    const finish = (r: TRawResponse) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      socket.destroy();
      resolve(r);
    };
    const timer = setTimeout(
      () => finish({ ok: false, reason: "timeout", detail: `no complete response within ${timeoutMs} ms`, ms: performance.now() - t0, resetWhileSending }),
      timeoutMs,
    );
    socket.on("data", (c: Buffer) => chunks.push(c));
    // The server may answer (413, 415) before it has read the whole body and then reset the
    // connection while we still write: what it answered is what counts.
    socket.on("error", () => {
      if (!sent) resetWhileSending = true;
    });
    socket.on("close", () => {
      const raw = Buffer.concat(chunks);
      const ms = performance.now() - t0;
      if (raw.length === 0) return finish({ ok: false, reason: "connection_dropped", detail: "closed without a response", ms, resetWhileSending });
      const parsed = parseResponse(raw);
      if (!parsed) return finish({ ok: false, reason: "unparseable", detail: raw.subarray(0, 120).toString("latin1"), ms, resetWhileSending });
      finish({ ok: true, ...parsed, ms });
    });
    socket.on("connect", () => {
      // No half-close: a node:http server ends its side when the client's ends, dropping a
      // response still being computed. Connection: close makes the server close when done.
      socket.write(encodeRequest(req, `127.0.0.1:${port}`), () => {
        sent = true;
      });
    });
  });
}
