import { isAscii } from "node:buffer";
import { STATUS_CODES, type IncomingMessage, type ServerResponse } from "node:http";
import type { Duplex } from "node:stream";
import { ContractError, errorBody, invalid, malformed } from "../http";
import { countKeys, findDuplicateKey, JsonScan, MAX_JSON_DEPTH, MAX_JSON_MEMBERS } from "./json-guard";

export { ContractError, errorBody, fromZod, malformed, type TErrorBody, type TFieldError } from "../http";

/** 422 `invalid`: the body is well formed but names an operation this instance does not route. */
export function unknownOperation(operation: string, known: readonly string[]): ContractError {
  return invalid([{ path: "operation", message: `unknown operation "${operation}"; known operations: ${known.join(", ") || "none"}` }]);
}

/** 422 `invalid`: a region the operation's providers do not serve. */
export function unknownRegion(operation: string, region: string, known: readonly string[]): ContractError {
  return invalid([{ path: "region", message: `unknown region "${region}" for ${operation}; known regions: ${known.join(", ") || "none"}` }]);
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

/**
 * The client went away before its body arrived (node:http's `Error: aborted`, or a socket closed
 * under a request timeout). Nobody is left to answer and it is not the server's fault, so it is
 * not logged as an error.
 */
export class ClientAbortedError extends Error {
  constructor() {
    super("the client closed the connection before its request body arrived");
  }
}

function isClientAbort(err: unknown): boolean {
  return err instanceof ClientAbortedError || (err instanceof Error && (err as NodeJS.ErrnoException).code === "ECONNRESET" && err.message === "aborted");
}

export function sendError(res: ServerResponse, err: unknown): void {
  if (err instanceof ContractError) {
    sendJson(res, err.status, err.toBody(), err.headers());
    return;
  }
  if (isClientAbort(err)) {
    res.destroy();
    return;
  }
  process.stderr.write(`dataplane: unexpected error: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`);
  sendJson(res, 500, errorBody("internal", "internal error"));
}

/**
 * A refused body is read to its end (and thrown away) before the answer, up to this much more or
 * DISCARD_TIMEOUT_MS: closing a connection with unread data makes the kernel reset it, and the
 * reset can destroy the 413 before the client reads it. Past the bound the connection is dropped.
 */
const DISCARD_LIMIT_BYTES = 64 * 1024 ** 2;
const DISCARD_TIMEOUT_MS = 5_000;

/**
 * Reads the body to its end, keeping the chunks while the total is within `keepBytes` and the
 * scan (if any) has not found it too deep; the rest is discarded, within the bounds above. Each
 * kept chunk goes through the scan as it arrives.
 */
function consumeBody(req: IncomingMessage, keepBytes: number, declaredBytes?: number, scan?: JsonScan): Promise<{ chunks: Buffer[]; size: number }> {
  const chunks: Buffer[] = [];
  let size = 0;
  if (req.readableEnded) return Promise.resolve({ chunks, size });
  // Aborted before the handler got here: no "end" or "error" is coming any more.
  if (req.destroyed) return Promise.reject(new ClientAbortedError());
  // The usual case on the hot path: the body arrived with the head and the stream holds all of
  // it (as many bytes as content-length says). Taken in one read, without listeners, a timer or a
  // pending promise per request. The stream ends by itself; the server does not dump a body that
  // was read (IncomingMessage._consuming).
  if (declaredBytes !== undefined && declaredBytes > 0 && declaredBytes <= keepBytes && req.readableLength === declaredBytes) {
    const chunk = req.read() as Buffer;
    chunks.push(chunk);
    scan?.feed(chunk);
    return Promise.resolve({ chunks, size: chunk.length });
  }
  return new Promise((resolve, reject) => {
    let timer: NodeJS.Timeout | undefined;
    let refused = false;
    const stop = () => {
      clearTimeout(timer);
      req.off("data", onData);
      req.off("end", finish);
      req.off("error", onError);
    };
    const finish = () => {
      stop();
      resolve({ chunks, size });
    };
    // A client that gives up while its refused body is discarded still gets the refusal (if it listens).
    const onError = (err: unknown) => {
      if (refused) return finish();
      stop();
      reject(isClientAbort(err) ? new ClientAbortedError() : err);
    };
    const onData = (chunk: Buffer) => {
      size += chunk.length;
      if (!refused) {
        scan?.feed(chunk);
        refused = size > keepBytes || scan?.tooDeep === true || scan?.tooMany === true;
        if (!refused) chunks.push(chunk);
      }
      if (!refused) return;
      if (size > keepBytes + DISCARD_LIMIT_BYTES) finish();
      else timer ??= setTimeout(finish, DISCARD_TIMEOUT_MS);
    };
    req.on("data", onData);
    req.once("end", finish);
    req.once("error", onError);
  });
}

function checkMediaType(req: IncomingMessage): void {
  const header = req.headers["content-type"];
  // The usual header, spelled exactly, needs no splitting and case folding.
  const type = header === "application/json" ? header : (header ?? "").split(";")[0]?.trim().toLowerCase();
  if (type !== "application/json") {
    throw new ContractError("unsupported_media_type", `content-type must be application/json, got ${type || "none"}`, "content-type");
  }
}

/**
 * Reads a JSON body with a size cap; rejects other media types, malformed JSON, nesting deeper
 * than `maxDepth` or more than `maxMembers` keys and array elements (both while the body arrives,
 * before JSON.parse) and duplicate keys with the right status.
 */
export async function readJsonBody(req: IncomingMessage, maxBytes: number, maxDepth = MAX_JSON_DEPTH, maxMembers = MAX_JSON_MEMBERS): Promise<unknown> {
  checkMediaType(req);
  const declared = Number(req.headers["content-length"] ?? "NaN");
  if (Number.isFinite(declared) && declared > maxBytes) {
    await consumeBody(req, 0);
    throw new ContractError("payload_too_large", `body is ${declared} bytes; the limit is ${maxBytes}`);
  }
  const scan = new JsonScan(maxDepth, maxMembers);
  const { chunks, size } = await consumeBody(req, maxBytes, Number.isFinite(declared) ? declared : undefined, scan);
  return parseScanned(chunks, size, maxBytes, scan);
}

/**
 * readJsonBody without waiting, for a body that is all in the request stream already (a small
 * one that came with its head, as decide's does): its value, the same checks made; undefined
 * when some of it is still to arrive (then readJsonBody reads it). Saves the hot path the
 * promises and turns of the event loop of reading what is already there.
 */
export function readArrivedJsonBody(req: IncomingMessage, maxBytes: number, maxDepth = MAX_JSON_DEPTH, maxMembers = MAX_JSON_MEMBERS): unknown {
  checkMediaType(req);
  const declared = Number(req.headers["content-length"] ?? "NaN");
  if (!(declared > 0 && declared <= maxBytes) || req.readableEnded || req.destroyed || req.readableLength !== declared) return undefined;
  const scan = new JsonScan(maxDepth, maxMembers);
  const chunk = req.read() as Buffer;
  scan.feed(chunk);
  return parseScanned([chunk], chunk.length, maxBytes, scan);
}

/** The checks after the scan, the decoding and the parse: the body's value, or the ContractError that refuses it. */
function parseScanned(chunks: Buffer[], size: number, maxBytes: number, scan: JsonScan): unknown {
  const { maxDepth, maxMembers } = scan;
  if (size > maxBytes) throw new ContractError("payload_too_large", `body exceeds the limit of ${maxBytes} bytes`);
  if (scan.tooDeep)
    throw malformed(
      [{ path: "", message: `nests objects and arrays more than ${maxDepth} levels deep (the limit)` }],
      `body nests objects and arrays more than ${maxDepth} levels deep (the limit)`,
    );
  if (scan.tooMany) throw new ContractError("too_many_members", `body has more than ${maxMembers} keys and array elements (the limit)`);
  let text: string;
  try {
    // One chunk (the usual case) is used as it is; ASCII, which is valid UTF-8 and decodes to the
    // same text, is copied out as Latin-1 without the strict decoder's pass (about half its cost).
    const bytes = chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks);
    text = isAscii(bytes) ? bytes.toString("latin1") : utf8.decode(bytes);
  } catch {
    throw malformed([{ path: "", message: "not valid UTF-8" }], "body is not valid UTF-8");
  }
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (err) {
    throw malformed([{ path: "", message: `not valid JSON: ${(err as Error).message}` }], `body is not valid JSON: ${(err as Error).message}`);
  }
  // JSON.parse keeps a repeated key's last value: {"region":"EU",…,"region":"NA"} would be routed
  // for NA. A repeat leaves fewer keys than the body spelled out, and only then is it looked for.
  if (scan.keys > 1 && countKeys(value) < scan.keys) {
    const path = findDuplicateKey(text);
    if (path !== null) throw malformed([{ path, message: "the key appears more than once in its object" }]);
  }
  // Only a \u escape can smuggle in what PostgreSQL refuses to store (NUL, lone surrogates);
  // one such value in a group-commit batch would fail every decision in it.
  if (text.includes("\\u")) {
    const bad = unstorableString(value, "");
    if (bad !== null)
      throw malformed(
        [{ path: bad, message: "contains a NUL character or an unpaired UTF-16 surrogate" }],
        `${bad || "body"}: contains a NUL character or an unpaired UTF-16 surrogate`,
      );
  }
  return value;
}

const utf8 = new TextDecoder("utf-8", { fatal: true, ignoreBOM: false });

const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;

/** The path of the first key or string value that PostgreSQL cannot store as text, or null. */
function unstorableString(value: unknown, path: string): string | null {
  const bad = (s: string) => s.includes("\u0000") || LONE_SURROGATE.test(s);
  if (typeof value === "string") return bad(value) ? path : null;
  if (value === null || typeof value !== "object") return null;
  for (const [key, child] of Object.entries(value)) {
    const childPath = path ? `${path}.${key}` : key;
    if (bad(key)) return childPath;
    const found = unstorableString(child, childPath);
    if (found !== null) return found;
  }
  return null;
}

/**
 * node:http's answer to a request it cannot parse (bad request line, control characters in a
 * header, headers over the size limit) is a bare 400 written just before the socket is
 * destroyed, so the client often sees only a dropped connection. This answers with the same
 * JSON error body as every other refusal and closes the connection after it is sent.
 */
export function answerClientError(err: Error & { code?: string; reason?: string }, socket: Duplex): void {
  const inFlight = (socket as Duplex & { _httpMessage?: ServerResponse | null })._httpMessage;
  if (err.code === "ECONNRESET" || !socket.writable || inFlight?.headersSent) {
    socket.destroy();
    return;
  }
  const timeout = err.code === "ERR_HTTP_REQUEST_TIMEOUT";
  const status = err.code === "HPE_HEADER_OVERFLOW" ? 431 : timeout ? 408 : 400;
  const code = status === 431 ? "headers_too_large" : timeout ? "request_timeout" : "malformed";
  const message = timeout
    ? "the request's headers or body did not arrive in time (HEADERS_TIMEOUT_MS, REQUEST_TIMEOUT_MS)"
    : `the request is not valid HTTP/1.1 (${err.code ?? "parse error"}: ${err.reason ?? err.message})`;
  const body = JSON.stringify(errorBody(code, message));
  const answer = `HTTP/1.1 ${status} ${STATUS_CODES[status]}\r\ncontent-type: application/json; charset=utf-8\r\ncontent-length: ${Buffer.byteLength(body)}\r\ncache-control: no-store\r\nconnection: close\r\n\r\n${body}`;
  // A slow client may go on trickling its body after the answer: the socket is closed once the
  // answer is out rather than left half-open, where it would hold the connection as long as before.
  if (timeout) socket.end(answer, () => socket.destroy());
  else socket.end(answer);
}
