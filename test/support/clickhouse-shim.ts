import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo, Socket } from "node:net";
import { randomUUID } from "node:crypto";
import { gunzipSync, gzipSync } from "node:zlib";
import { Session } from "chdb";

/**
 * ClickHouse's HTTP interface, as much of it as `@clickhouse/client` uses, over an embedded
 * engine (chdb) in this process: tests reach a real ClickHouse (MergeTree, TTL, insert
 * deduplication) through the official client over loopback HTTP, and can take the endpoint
 * away (stop) and bring it back (start) while the engine and its data stay.
 *
 * What it speaks: GET /ping; POST / with the statement in the body, or an INSERT in the `query`
 * parameter with its rows in the body; `param_*` query parameters (server-side binding);
 * `insert_*`/`input_format_*` settings on inserts; gzip both ways (`enable_http_compression`,
 * `Content-Encoding: gzip`). It answers with X-ClickHouse-Query-Id, -Format, -Summary and, on a
 * failure, status 500, X-ClickHouse-Exception-Code and the engine's message, which the client
 * parses into a ClickHouseError. Any other setting is refused rather than silently ignored.
 */
export type ClickHouseShim = {
  url: string;
  session: Session;
  /** Stops listening and cuts open connections: to the client, ClickHouse is gone. */
  stop(): Promise<void>;
  /** Listens again on the same port. */
  start(): Promise<void>;
  /** Request bodies that came gzipped (Content-Encoding: gzip), so a test can tell compression is on. */
  readonly gzippedBodies: number;
  close(): Promise<void>;
};

const HTTP_ONLY = new Set(["query_id", "database", "query", "session_id", "default_format", "enable_http_compression", "role"]);
const INSERT_RE = /^\s*INSERT\s+INTO\s+([\w.`"]+)\s*(?:\(([^)]*)\))?\s*FORMAT\s+(\w+)\s*$/is;
const FORMAT_RE = /\bFORMAT\s+(\w+)\s*;?\s*$/i;
const RAW_FORMATS = new Set(["JSONEachRow", "JSONCompactEachRow", "CSV", "CSVWithNames", "TSV", "TabSeparated", "TSVWithNames", "TabSeparatedWithNames"]);

/** Starts the shim on 127.0.0.1 (a free port unless `port` is given); `path`: the engine's data directory. */
export async function startClickHouseShim(opts: { path: string; port?: number }): Promise<ClickHouseShim> {
  const session = new Session(opts.path);
  const sockets = new Set<Socket>();
  let server: Server | null = null;
  let port = opts.port ?? 0;
  const seen = { gzipped: 0 };

  async function listen(): Promise<void> {
    // Query parameters travel in the URL (an outcome batch's 1,000 decision ids): as long as
    // ClickHouse's own http_max_uri_size (1 MiB) rather than Node's 16 KB default.
    const s = createServer({ maxHeaderSize: 1 << 20 }, (req, res) => void handle(session, req, res, seen));
    s.on("connection", (sock) => {
      sockets.add(sock);
      sock.on("close", () => sockets.delete(sock));
    });
    await new Promise<void>((resolve, reject) => {
      s.once("error", reject);
      s.listen(port, "127.0.0.1", () => resolve());
    });
    port = (s.address() as AddressInfo).port;
    server = s;
  }

  async function stop(): Promise<void> {
    const s = server;
    if (!s) return;
    server = null;
    const closed = new Promise<void>((resolve) => s.close(() => resolve()));
    for (const sock of sockets) sock.destroy();
    await closed;
  }

  await listen();
  return {
    get url() {
      return `http://127.0.0.1:${port}`;
    },
    session,
    get gzippedBodies() {
      return seen.gzipped;
    },
    stop,
    start: () => (server ? Promise.resolve() : listen()),
    async close() {
      await stop();
      session.close();
    },
  };
}

async function readBody(req: IncomingMessage, seen: { gzipped: number }): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const c of req) chunks.push(c as Buffer);
  const body = Buffer.concat(chunks);
  if (req.headers["content-encoding"] !== "gzip") return body;
  seen.gzipped++;
  return gunzipSync(body);
}

function send(req: IncomingMessage, res: ServerResponse, status: number, text: string, headers: Record<string, string>): void {
  const gzip = new URL(req.url ?? "/", "http://x").searchParams.get("enable_http_compression") === "1" && /gzip/.test(req.headers["accept-encoding"] ?? "");
  const body = gzip ? gzipSync(text) : Buffer.from(text);
  res.writeHead(status, { ...headers, "content-length": String(body.length), ...(gzip ? { "content-encoding": "gzip" } : {}) });
  res.end(body);
}

/** The engine's message as ClickHouse's HTTP interface words it ("Code: N. DB::Exception: … (TYPE)"). */
function fail(req: IncomingMessage, res: ServerResponse, queryId: string, err: unknown): void {
  const message = err instanceof Error ? err.message : String(err);
  const code = /Code: (\d+)/.exec(message)?.[1] ?? "1001";
  const text = /DB::Exception/.test(message) ? message : `Code: ${code}. DB::Exception: ${message}. (STD_EXCEPTION)`;
  send(req, res, 500, `${text}\n`, { "x-clickhouse-query-id": queryId, "x-clickhouse-exception-code": code, "content-type": "text/plain; charset=UTF-8" });
}

async function handle(session: Session, req: IncomingMessage, res: ServerResponse, seen: { gzipped: number }): Promise<void> {
  const url = new URL(req.url ?? "/", "http://x");
  const queryId = url.searchParams.get("query_id") ?? randomUUID();
  try {
    if (url.pathname === "/ping") return send(req, res, 200, "Ok.\n", {});
    const body = await readBody(req, seen);
    const params: Record<string, string> = {};
    const settings: Record<string, string> = {};
    for (const [k, v] of url.searchParams) {
      if (k.startsWith("param_")) params[k.slice(6)] = v;
      else if (!HTTP_ONLY.has(k)) settings[k] = v;
    }
    const inUrl = url.searchParams.get("query");
    const statement = inUrl !== null && body.length > 0 ? inUrl : `${inUrl ?? ""}${body.toString("utf8")}`;
    const insert = INSERT_RE.exec(statement);
    if (insert && inUrl !== null && body.length > 0) {
      const [, table, columns, format] = insert;
      if (!RAW_FORMATS.has(format!)) throw new Error(`shim: insert format ${format} is not supported`);
      const s = await session.insert({
        table: table!.replace(/[`"]/g, ""),
        values: body,
        format: format as "JSONEachRow",
        ...(columns ? { columns: columns.split(",").map((c) => c.trim().replace(/[`"]/g, "")) } : {}),
        settings,
      });
      return send(req, res, 200, "", {
        "x-clickhouse-query-id": queryId,
        "x-clickhouse-summary": JSON.stringify({ read_rows: "0", read_bytes: "0", written_rows: String(s.rowsWritten), written_bytes: String(s.bytesWritten) }),
      });
    }
    const unsupported = Object.keys(settings);
    if (unsupported.length > 0) throw new Error(`shim: settings on a non-insert statement are not supported: ${unsupported.join(", ")}`);
    const format = FORMAT_RE.exec(statement)?.[1] ?? url.searchParams.get("default_format") ?? "TabSeparated";
    const result =
      Object.keys(params).length > 0 ? await session.queryBindAsync(statement, params, { format }) : await session.queryAsync(statement, { format });
    send(req, res, 200, result.text(), {
      "x-clickhouse-query-id": queryId,
      "x-clickhouse-format": format,
      "content-type": format.startsWith("JSON") ? "application/json; charset=UTF-8" : "text/plain; charset=UTF-8",
      "x-clickhouse-summary": JSON.stringify({
        read_rows: String(result.rowsRead),
        read_bytes: String(result.bytesRead),
        written_rows: "0",
        written_bytes: "0",
      }),
    });
  } catch (err) {
    fail(req, res, queryId, err);
  }
}
