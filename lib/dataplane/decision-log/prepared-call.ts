import type pg from "pg";
import type { TBinaryParam } from "./columns";

/**
 * One execution of a named prepared statement whose parameters are all binary (columns.ts),
 * written to the connection as one message sized up front: Bind, Execute and Sync, preceded by
 * Close and Parse on a connection that has not prepared the statement yet. It goes through
 * node-pg's client as a Submittable (the interface pg-cursor uses), so the client's queue,
 * error handling and pool work as for any query; results are read in text format, by position.
 *
 * The decision log's batches go this way because node-pg's own path was a large part of a batch's
 * cost: its message writer starts at 256 bytes and grows by half plus each parameter, copying
 * what it holds every time (a dozen allocations and copies for a 30 KB batch), after each column
 * had already been encoded into a buffer of its own; it also cloned the query config and built a
 * Result per call.
 */

/** The statements each connection (node-pg's, one per session) has prepared, by name. */
const prepared = new WeakMap<object, Set<string>>();

type TConnection = { stream: { write(b: Buffer): boolean } };

/** Execute (the unnamed portal, every row) and Sync, the same for every call. */
const EXECUTE_SYNC = Buffer.from([0x45, 0, 0, 0, 9, 0, 0, 0, 0, 0, 0x53, 0, 0, 0, 4]);

function cstringBytes(s: string): number {
  return Buffer.byteLength(s) + 1;
}

function putCString(out: Buffer, s: string, at: number): number {
  at += out.write(s, at, "utf8");
  out[at] = 0;
  return at + 1;
}

/** The frontend messages for one call: [Close, Parse,] Bind, Execute, Sync. */
function callMessage(name: string, sql: string, params: readonly TBinaryParam[], prepare: boolean): Buffer {
  const nameBytes = cstringBytes(name);
  const closeBytes = prepare ? 1 + 4 + 1 + nameBytes : 0;
  const parseBytes = prepare ? 1 + 4 + nameBytes + cstringBytes(sql) + 2 : 0;
  // Bind: portal "", statement, one format code (binary) for every parameter, the parameters, no result format codes (text).
  let bindBytes = 1 + 4 + 1 + nameBytes + 2 + 2 + 2 + 2;
  for (const p of params) bindBytes += 4 + p.bytes;
  const out = Buffer.allocUnsafe(closeBytes + parseBytes + bindBytes + EXECUTE_SYNC.length);
  let at = 0;
  if (prepare) {
    out[at] = 0x43; // Close (a statement that does not exist is no error)
    out.writeInt32BE(closeBytes - 1, at + 1);
    out[at + 5] = 0x53;
    at = putCString(out, name, at + 6);
    out[at] = 0x50; // Parse, parameter types from the statement's casts
    out.writeInt32BE(parseBytes - 1, at + 1);
    at = putCString(out, sql, putCString(out, name, at + 5));
    out.writeInt16BE(0, at);
    at += 2;
  }
  out[at] = 0x42; // Bind
  out.writeInt32BE(bindBytes - 1, at + 1);
  out[at + 5] = 0; // unnamed portal
  at = putCString(out, name, at + 6);
  out.writeInt16BE(1, at);
  out.writeInt16BE(1, at + 2);
  out.writeInt16BE(params.length, at + 4);
  at += 6;
  for (const p of params) {
    out.writeInt32BE(p.bytes, at);
    p.write(out, at + 4);
    at += 4 + p.bytes;
  }
  out.writeInt16BE(0, at);
  at += 2;
  EXECUTE_SYNC.copy(out, at);
  return out;
}

type TCallback = (err: Error | null, rows?: (string | null)[][]) => void;

/**
 * The Submittable. Its outcome goes to `callback`, which node-pg may wrap before submitting it:
 * with a `query_timeout`, the wrapper clears the read timer, and a timer never cleared would keep
 * the call and its parameters alive until it fired (and then fail it after the fact).
 */
class PreparedCall implements pg.Submittable {
  private readonly rows: (string | null)[][] = [];
  private failed = false;
  private connection: object | null = null;
  /** Whether this call prepared the statement (sent Close and Parse) rather than assuming it. */
  prepared = false;

  constructor(
    private readonly statement: string,
    private message: ((prepare: boolean) => Buffer) | null,
    public callback: TCallback,
  ) {}

  submit(connection: pg.Connection): Error | void {
    this.connection = connection;
    let names = prepared.get(connection);
    if (!names) prepared.set(connection, (names = new Set()));
    let message: Buffer;
    try {
      this.prepared = !names.has(this.statement);
      message = this.message!(this.prepared);
    } catch (err) {
      // pg reports a returned error to handleError and moves on to the next query.
      return err instanceof Error ? err : new Error(String(err));
    } finally {
      this.message = null;
    }
    (connection as unknown as TConnection).stream.write(message);
  }

  handleDataRow(msg: { fields: (string | null)[] }): void {
    this.rows.push(msg.fields);
  }

  handleCommandComplete(): void {}
  handleRowDescription(): void {}
  handleEmptyQuery(): void {}
  handlePortalSuspended(): void {}
  handleCopyInResponse(): void {}
  handleCopyData(): void {}

  handleError(err: Error): void {
    if (this.failed) return;
    this.failed = true;
    // Whether the Parse went through is unknown: the next call closes and prepares it again.
    if (this.connection) prepared.get(this.connection)?.delete(this.statement);
    this.callback(err);
  }

  handleReadyForQuery(): void {
    if (this.failed) return;
    if (this.connection) prepared.get(this.connection)?.add(this.statement);
    this.callback(null, this.rows);
  }
}

/** SQLSTATE invalid_sql_statement_name: the session no longer has the statement (DEALLOCATE, DISCARD ALL). */
const NO_SUCH_STATEMENT = "26000";

/**
 * Runs the prepared statement `name` (`sql`, whose parameters are typed by casts) with binary
 * parameters; resolves with its result rows, each a list of text values in column order. A
 * session that lost the statement behind this process's back gets it prepared again, once.
 */
export async function callPrepared(client: pg.ClientBase, name: string, sql: string, params: readonly TBinaryParam[]): Promise<(string | null)[][]> {
  const once = () => {
    let call: PreparedCall;
    const rows = new Promise<(string | null)[][]>((resolve, reject) => {
      call = new PreparedCall(
        name,
        (prepare) => callMessage(name, sql, params, prepare),
        (err, found) => (err ? reject(err) : resolve(found!)),
      );
      client.query(call);
    });
    return { rows, prepared: () => call.prepared };
  };
  const first = once();
  try {
    return await first.rows;
  } catch (err) {
    if ((err as { code?: unknown }).code !== NO_SUCH_STATEMENT || first.prepared()) throw err;
    return await once().rows;
  }
}
