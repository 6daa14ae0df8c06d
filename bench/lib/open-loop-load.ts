import { fileURLToPath } from "node:url";
import { quantile } from "./bench-results";
import { exitWithError, exitWithJson, runJsonChild } from "./child-process";
import { RawHttpConnection, requestHead, requestText, textAfter, type TRawAnswer } from "./raw-http-connection";

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
  /** Measured seconds, after `warmupSeconds` at the same rate whose requests are sent but not measured. */
  seconds: number;
  warmupSeconds?: number;
  connections: number;
  onResponse?: (status: number, body: Buffer) => void;
};

export type TOpenLoopResult = {
  rate: number;
  seconds: number;
  /** Requests sent, warm-up included. */
  sent: number;
  /** Answers by HTTP status, warm-up included. */
  statuses: Record<string, number>;
  errors: number;
  /** Due time to the end of the answer, ms; requests due after the warm-up only. */
  latency: { p50: number; p90: number; p99: number; max: number };
  /** Requests that could not leave within 1 ms of their due time (every connection busy, or the generator late). */
  lateShare: number;
};

/** A keep-alive connection and the request it carries (-1: idle). */
type TConnection = { http: RawHttpConnection; index: number };

/**
 * The generator talks HTTP/1.1 over raw sockets (raw-http-connection.ts) rather than through
 * node:http's client: with that client it spent about as much CPU per request as the server
 * under test and fell behind its own schedule, so its lateness was most of the measured tail.
 */
export async function openLoop(spec: TOpenLoopSpec): Promise<TOpenLoopResult> {
  // The warm-up's requests are due first: new connections and a cold generator and server paid
  // for in them, not in the measured tail.
  const warmup = Math.round(spec.rate * (spec.warmupSeconds ?? 0));
  const total = warmup + Math.round(spec.rate * spec.seconds);
  const latencies = new Float64Array(total);
  const statuses: Record<string, number> = {};
  let sent = 0;
  let done = 0;
  let errors = 0;
  let late = 0;
  const start = performance.now();
  const intervalMs = 1000 / spec.rate;
  const head = requestHead("POST", spec.port, spec.path, { ...spec.headers, "content-type": "application/json" });
  const idle: TConnection[] = [];
  // Requests due while every connection was busy: always the consecutive range [waitingFrom,
  // waitingTo), since they come due in order. Two counters instead of an array's shift(), which
  // copies the array once it is large: a generator that fell behind fell further behind.
  let waitingFrom = 0;
  let waitingTo = 0;
  let open = 0;

  await new Promise<void>((resolve) => {
    const settle = (c: TConnection, answer: TRawAnswer | null) => {
      latencies[c.index] = performance.now() - (start + c.index * intervalMs);
      if (answer === null) errors++;
      else {
        const key = String(answer.status);
        statuses[key] = (statuses[key] ?? 0) + 1;
        spec.onResponse?.(answer.status, answer.body);
      }
      c.index = -1;
      done++;
      if (done === total) resolve();
    };
    const dispatch = (c: TConnection) => {
      if (waitingFrom === waitingTo) idle.push(c);
      else write(c, waitingFrom++);
    };
    const connect = (): TConnection => {
      open++;
      const c: TConnection = {
        http: new RawHttpConnection(
          spec.port,
          (answer) => {
            settle(c, answer);
            if (answer !== null) dispatch(c);
          },
          spec.onResponse !== undefined,
        ),
        index: -1,
      };
      const lost = () => {
        if (c.index >= 0) settle(c, null);
        const at = idle.indexOf(c);
        if (at >= 0) idle.splice(at, 1);
        open--;
        // Requests waiting for a connection get a new one.
        if (waitingFrom < waitingTo && done < total) dispatch(connect());
      };
      c.http.socket.once("close", lost);
      return c;
    };
    const write = (c: TConnection, i: number) => {
      const due = start + i * intervalMs;
      if (i >= warmup && performance.now() - due > 1) late++;
      c.index = i;
      c.http.send(requestText(head, spec.body(i)));
    };
    const send = (i: number) => {
      if (waitingFrom === waitingTo) {
        const c = idle.pop();
        if (c) return write(c, i);
        if (open < spec.connections) return write(connect(), i);
        waitingFrom = waitingTo = i;
      }
      // Requests are due in order, so a non-empty range always ends just before i.
      waitingTo = i + 1;
      if (open < spec.connections) dispatch(connect());
    };
    // Timers fire about every millisecond: each tick sends whatever has come due since the last.
    const tick = () => {
      const due = Math.min(total, Math.floor((performance.now() - start) / intervalMs) + 1);
      while (sent < due) send(sent++);
      if (sent < total) setTimeout(tick, 1);
    };
    tick();
  });
  for (const c of idle) c.http.socket.destroy();

  const sorted = latencies.slice(warmup).sort();
  const q = (p: number) => Math.round(quantile(sorted, p) * 100) / 100;
  return {
    rate: spec.rate,
    seconds: spec.seconds,
    sent,
    statuses,
    errors,
    latency: { p50: q(0.5), p90: q(0.9), p99: q(0.99), max: q(1) },
    lateShare: sent === warmup ? 0 : late / (sent - warmup),
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
  return runJsonChild(fileURLToPath(import.meta.url), ["--open-loop", JSON.stringify(spec)], "open-loop generator");
}

async function runChild(spec: TChildSpec): Promise<{ result: TOpenLoopResult; collected: string[] }> {
  const collected: string[] = [];
  const prefix = Buffer.from(spec.collectAfter);
  const result = await openLoop({
    ...spec,
    body: (i) => spec.template.replaceAll("{i}", String(i)).replaceAll("{cycle}", spec.cycle[i % spec.cycle.length] ?? ""),
    onResponse: (status, body) => {
      const id = status === 200 ? textAfter(body, prefix, 36) : null;
      if (id !== null) collected.push(id);
    },
  });
  return { result, collected };
}

const flag = process.argv.indexOf("--open-loop");
if (flag !== -1) runChild(JSON.parse(process.argv[flag + 1]!) as TChildSpec).then(exitWithJson, exitWithError);
