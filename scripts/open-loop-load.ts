import { spawn } from "node:child_process";
import net from "node:net";
import { fileURLToPath } from "node:url";
import { quantile } from "../lib/reliability/bench-results";

/**
 * An open-loop load generator: request i is due at start + i / rate, whatever happened to the
 * earlier ones, and its latency is measured from that due time, so a slow answer cannot hide the
 * requests that should have been sent meanwhile (no coordinated omission). Requests go out over
 * at most `connections` keep-alive connections; a request due while all are busy waits for one,
 * and that wait counts in its latency.
 *
 * This is what "latency at a fixed rate" means for a service with many independent callers.
 * autocannon's `overallRate` is not that: each connection sends its whole per-second quota at
 * the start of every second and then pauses, so its latencies measure how fast a one-second
 * burst drains (and its coordinated-omission correction adds synthetic samples on top).
 */
export type TOpenLoopSpec = {
  port: number;
  path: string;
  headers: Record<string, string>;
  /** Body of request i. */
  body: (i: number) => string;
  rate: number;
  seconds: number;
  connections: number;
  onResponse?: (status: number, body: string) => void;
};

export type TOpenLoopResult = {
  rate: number;
  seconds: number;
  sent: number;
  /** Answers by HTTP status. */
  statuses: Record<string, number>;
  errors: number;
  /** Due time to the end of the answer, ms. */
  latency: { p50: number; p90: number; p99: number; max: number };
  /** Requests that could not leave within 1 ms of their due time (every connection busy, or the generator late). */
  lateShare: number;
};

/** One keep-alive connection: at most one request in flight (no pipelining), its answer parsed as it arrives. */
type TConnection = { socket: net.Socket; index: number; buffered: Buffer | null; bodyStart: number; end: number; status: number };

const HEADER_END = Buffer.from("\r\n\r\n");
const CONTENT_LENGTH = /\r\ncontent-length:\s*(\d+)/i;

/**
 * The generator talks HTTP/1.1 over raw sockets rather than through node:http's client: with
 * that client it spent about as much CPU per request as the server under test and fell behind
 * its own schedule (a third of the requests sent late at 1,500/s), so its lateness was most of
 * the measured tail. Answers are read by content-length, which every /api/v1 answer carries; an
 * answer without one counts as an error and its connection is replaced.
 */
export async function openLoop(spec: TOpenLoopSpec): Promise<TOpenLoopResult> {
  const total = Math.round(spec.rate * spec.seconds);
  const latencies = new Float64Array(total);
  const statuses: Record<string, number> = {};
  let sent = 0;
  let done = 0;
  let errors = 0;
  let late = 0;
  const start = performance.now();
  const intervalMs = 1000 / spec.rate;
  const head =
    `POST ${spec.path} HTTP/1.1\r\nhost: 127.0.0.1:${spec.port}\r\n` +
    Object.entries({ ...spec.headers, "content-type": "application/json" })
      .map(([k, v]) => `${k}: ${v}\r\n`)
      .join("");
  const idle: TConnection[] = [];
  const waiting: number[] = [];
  let open = 0;

  await new Promise<void>((resolve) => {
    const settle = (c: TConnection, status: number | null, body: string) => {
      latencies[c.index] = performance.now() - (start + c.index * intervalMs);
      if (status === null) errors++;
      else {
        const key = String(status);
        statuses[key] = (statuses[key] ?? 0) + 1;
        spec.onResponse?.(status, body);
      }
      c.index = -1;
      c.buffered = null;
      done++;
      if (done === total) resolve();
    };
    const dispatch = (c: TConnection) => {
      const i = waiting.shift();
      if (i === undefined) idle.push(c);
      else write(c, i);
    };
    const connect = (): TConnection => {
      open++;
      const c: TConnection = { socket: net.connect({ host: "127.0.0.1", port: spec.port }), index: -1, buffered: null, bodyStart: -1, end: -1, status: 0 };
      c.socket.setNoDelay(true);
      c.socket.on("data", (chunk: Buffer) => {
        if (c.index < 0) return;
        c.buffered = c.buffered === null ? chunk : Buffer.concat([c.buffered, chunk]);
        const buf = c.buffered;
        if (c.bodyStart < 0) {
          const at = buf.indexOf(HEADER_END);
          if (at < 0) return;
          const header = buf.toString("latin1", 0, at);
          const length = CONTENT_LENGTH.exec(header);
          if (!length) {
            settle(c, null, "");
            c.socket.destroy();
            return;
          }
          c.status = Number(header.slice(9, 12));
          c.bodyStart = at + HEADER_END.length;
          c.end = c.bodyStart + Number(length[1]);
        }
        if (buf.length < c.end) return;
        const body = spec.onResponse ? buf.toString("utf8", c.bodyStart, c.end) : "";
        c.bodyStart = -1;
        settle(c, c.status, body);
        dispatch(c);
      });
      const lost = () => {
        if (c.index >= 0) settle(c, null, "");
        const at = idle.indexOf(c);
        if (at >= 0) idle.splice(at, 1);
        open--;
        // Requests waiting for a connection get a new one.
        if (waiting.length > 0 && done < total) dispatch(connect());
      };
      c.socket.once("error", () => c.socket.destroy());
      c.socket.once("close", lost);
      return c;
    };
    const write = (c: TConnection, i: number) => {
      const due = start + i * intervalMs;
      if (performance.now() - due > 1) late++;
      c.index = i;
      c.bodyStart = -1;
      const body = spec.body(i);
      c.socket.write(`${head}content-length: ${Buffer.byteLength(body)}\r\n\r\n${body}`);
    };
    const send = (i: number) => {
      const c = idle.pop();
      if (c) write(c, i);
      else if (open < spec.connections) write(connect(), i);
      else waiting.push(i);
    };
    // Timers fire about every millisecond: each tick sends whatever has come due since the last.
    const tick = () => {
      const due = Math.min(total, Math.floor((performance.now() - start) / intervalMs) + 1);
      while (sent < due) send(sent++);
      if (sent < total) setTimeout(tick, 1);
    };
    tick();
  });
  for (const c of idle) c.socket.destroy();

  const sorted = latencies.slice().sort();
  const q = (p: number) => Math.round(quantile(sorted, p) * 100) / 100;
  return {
    rate: spec.rate,
    seconds: spec.seconds,
    sent,
    statuses,
    errors,
    latency: { p50: q(0.5), p90: q(0.9), p99: q(0.99), max: q(1) },
    lateShare: sent === 0 ? 0 : late / sent,
  };
}

/**
 * The same run in a process of its own, so the benchmark's bookkeeping (and its garbage
 * collector) does not add to the latencies. Request i's body is `template` with `{i}` replaced by
 * i and `{cycle}` by cycle[i mod its length]; answers with status 200 give back the 36 characters
 * after `collectAfter` (a decision id).
 */
export type TChildSpec = Omit<TOpenLoopSpec, "body" | "onResponse"> & { template: string; cycle: string[]; collectAfter: string };

export function openLoopInChild(spec: TChildSpec): Promise<{ result: TOpenLoopResult; collected: string[] }> {
  const child = spawn(process.execPath, ["--import", "tsx", fileURLToPath(import.meta.url), "--open-loop", JSON.stringify(spec)], {
    stdio: ["ignore", "pipe", "inherit"],
  });
  let out = "";
  child.stdout!.on("data", (c: Buffer) => (out += c.toString()));
  return new Promise((resolve, reject) => {
    // "close", not "exit": the output may still be in the pipe when the process has exited.
    child.once("close", (code) => (code === 0 ? resolve(JSON.parse(out) as { result: TOpenLoopResult; collected: string[] }) : reject(new Error(`open-loop generator exited with code ${code}`))));
  });
}

async function runChild(spec: TChildSpec): Promise<void> {
  const collected: string[] = [];
  const start = spec.collectAfter.length;
  const result = await openLoop({
    ...spec,
    body: (i) => spec.template.replaceAll("{i}", String(i)).replaceAll("{cycle}", spec.cycle[i % spec.cycle.length] ?? ""),
    onResponse: (status, body) => {
      if (status === 200 && body.startsWith(spec.collectAfter)) collected.push(body.slice(start, start + 36));
    },
  });
  // Exit only once the whole answer is written: a pipe takes a large write in several goes.
  await new Promise<void>((resolve) => process.stdout.write(JSON.stringify({ result, collected }), () => resolve()));
}

const flag = process.argv.indexOf("--open-loop");
if (flag !== -1) {
  runChild(JSON.parse(process.argv[flag + 1]!) as TChildSpec).then(
    () => process.exit(0),
    (err: unknown) => {
      console.error(err);
      process.exit(1);
    },
  );
}
