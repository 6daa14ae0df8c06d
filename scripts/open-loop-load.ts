import { spawn } from "node:child_process";
import http from "node:http";
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

export async function openLoop(spec: TOpenLoopSpec): Promise<TOpenLoopResult> {
  const agent = new http.Agent({ keepAlive: true, maxSockets: spec.connections });
  const total = Math.round(spec.rate * spec.seconds);
  const latencies = new Float64Array(total);
  const statuses: Record<string, number> = {};
  let sent = 0;
  let done = 0;
  let errors = 0;
  let late = 0;
  const start = performance.now();
  const intervalMs = 1000 / spec.rate;

  await new Promise<void>((resolve) => {
    const finish = () => {
      if (done === total) resolve();
    };
    const send = (i: number) => {
      const due = start + i * intervalMs;
      const body = spec.body(i);
      const req = http.request(
        {
          host: "127.0.0.1",
          port: spec.port,
          path: spec.path,
          method: "POST",
          agent,
          headers: { ...spec.headers, "content-type": "application/json", "content-length": Buffer.byteLength(body) },
        },
        (res) => {
          const chunks: Buffer[] = [];
          res.on("data", (c: Buffer) => chunks.push(c));
          res.on("end", () => {
            latencies[i] = performance.now() - due;
            const key = String(res.statusCode);
            statuses[key] = (statuses[key] ?? 0) + 1;
            spec.onResponse?.(res.statusCode ?? 0, Buffer.concat(chunks).toString());
            done++;
            finish();
          });
        },
      );
      req.on("socket", () => {
        if (performance.now() - due > 1) late++;
      });
      req.on("error", () => {
        latencies[i] = performance.now() - due;
        errors++;
        done++;
        finish();
      });
      req.end(body);
    };
    // Timers fire about every millisecond: each tick sends whatever has come due since the last.
    const tick = () => {
      const due = Math.min(total, Math.floor((performance.now() - start) / intervalMs) + 1);
      while (sent < due) send(sent++);
      if (sent < total) setTimeout(tick, 1);
    };
    tick();
  });
  agent.destroy();

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
