import { STATUS_CODES, type IncomingMessage, type ServerResponse } from "node:http";
import type { Duplex } from "node:stream";

export type TErrorBody = { error: { code: string; message: string; field?: string; issues?: Array<{ path: string; message: string }> } };

export class HttpError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
    readonly field?: string,
    readonly issues?: Array<{ path: string; message: string }>,
  ) {
    super(message);
  }

  toBody(): TErrorBody {
    return { error: { code: this.code, message: this.message, field: this.field, issues: this.issues } };
  }
}

export function sendJson(res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}): void {
  const payload = JSON.stringify(body);
  res.writeHead(status, {
    "content-type": "application/json; charset=utf-8",
    "content-length": Buffer.byteLength(payload),
    "cache-control": "no-store",
    ...headers,
  });
  res.end(payload);
}

export function sendText(res: ServerResponse, status: number, body: string, contentType: string): void {
  res.writeHead(status, { "content-type": contentType, "content-length": Buffer.byteLength(body), "cache-control": "no-store" });
  res.end(body);
}

export function sendError(res: ServerResponse, err: unknown): void {
  if (err instanceof HttpError) {
    sendJson(res, err.status, err.toBody());
    return;
  }
  process.stderr.write(`dataplane: unexpected error: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`);
  sendJson(res, 500, { error: { code: "internal", message: "internal error" } });
}

/** Reads a JSON body with a size cap; rejects other media types and malformed JSON with the right status. */
export async function readJsonBody(req: IncomingMessage, maxBytes: number): Promise<unknown> {
  const type = (req.headers["content-type"] ?? "").split(";")[0]?.trim().toLowerCase();
  if (type !== "application/json") {
    throw new HttpError(415, "unsupported_media_type", `content-type must be application/json, got ${type || "none"}`, "content-type");
  }
  const declared = Number(req.headers["content-length"] ?? "NaN");
  if (Number.isFinite(declared) && declared > maxBytes) {
    throw new HttpError(413, "payload_too_large", `body is ${declared} bytes; the limit is ${maxBytes}`);
  }
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req) {
    size += (chunk as Buffer).length;
    if (size > maxBytes) throw new HttpError(413, "payload_too_large", `body exceeds the limit of ${maxBytes} bytes`);
    chunks.push(chunk as Buffer);
  }
  const text = Buffer.concat(chunks).toString("utf8");
  try {
    return JSON.parse(text);
  } catch (err) {
    throw new HttpError(400, "invalid_json", `body is not valid JSON: ${(err as Error).message}`);
  }
}

/**
 * node:http's answer to a request it cannot parse (bad request line, control characters in a
 * header, headers over the size limit) is a bare 400 written just before the socket is
 * destroyed, so the client often sees only a dropped connection. This answers with the same
 * JSON error body as every other refusal and closes the connection after it is sent.
 */
export function answerClientError(err: Error & { code?: string; reason?: string }, socket: Duplex): void {
  if (err.code === "ECONNRESET" || !socket.writable) {
    socket.destroy();
    return;
  }
  const status = err.code === "HPE_HEADER_OVERFLOW" ? 431 : err.code === "ERR_HTTP_REQUEST_TIMEOUT" ? 408 : 400;
  const code = status === 431 ? "headers_too_large" : status === 408 ? "request_timeout" : "malformed_request";
  const body = JSON.stringify({ error: { code, message: `the request is not valid HTTP/1.1 (${err.code ?? "parse error"}: ${err.reason ?? err.message})` } });
  socket.end(
    `HTTP/1.1 ${status} ${STATUS_CODES[status]}\r\ncontent-type: application/json; charset=utf-8\r\ncontent-length: ${Buffer.byteLength(body)}\r\ncache-control: no-store\r\nconnection: close\r\n\r\n${body}`,
  );
}
