import { fileURLToPath } from "node:url";
import { exitWithError, exitWithJson, runJsonChild } from "./child-process";
import { RawHttpConnection, requestHead, requestText, textAfter } from "./raw-http-connection";

/**
 * The benchmarks' closed-loop load generator (bench:gateway, bench:api), run as its own process
 * so it never shares an event loop with a server it measures: `connections` workers, each sending
 * its next request when the last answer is read, over keep-alive raw sockets
 * (raw-http-connection.ts). Latency is taken per request with the high-resolution clock
 * (autocannon rounds to whole milliseconds, too coarse for a gateway's added latency on loopback,
 * and its CPU per request is taken from the server it measures on a 2-core machine).
 */
export type TLoadSpec = {
  url: string;
  headers: Record<string, string>;
  body: string;
  seconds: number;
  connections: number;
  /** `{n}` in the body or a header value becomes the request's sequence number, `{cycle}` cycle[n mod its length]. */
  label: string;
  cycle?: string[];
  /** Keep the 36 characters after this prefix of every 200 answer (a decision id). */
  collectAfter?: string;
};

export type TLoadResult = {
  label: string;
  requests: number;
  perSecond: number;
  status: Record<string, number>;
  errors: number;
  /** Microseconds, successful (2xx) requests only. */
  p50Us: number;
  p90Us: number;
  p99Us: number;
  maxUs: number;
  /** CPU of the process serving the target per request (set by the parent, which knows the pid). */
  cpuUsPerRequest?: number | null;
  /** CPU of the target's Postgres server per request, where it has one on this machine. */
  postgresCpuUsPerRequest?: number | null;
  /** The load generator's own CPU per answered request (it shares the machine with the target). */
  generatorCpuUs: number;
  seconds: number;
  collected: string[];
};

export async function runLoad(spec: TLoadSpec): Promise<TLoadResult> {
  const url = new URL(spec.url);
  const port = Number(url.port);
  const latencies: number[] = [];
  const status: Record<string, number> = {};
  let errors = 0;
  let sequence = 0;
  const cycle = spec.cycle ?? [];
  const templatedBody = spec.body.includes("{n}") || spec.body.includes("{cycle}");
  const templatedHead = Object.values(spec.headers).some((v) => v.includes("{n}"));
  const collectAfter = spec.collectAfter === undefined ? null : Buffer.from(spec.collectAfter);
  const collected: string[] = [];
  const fixedHead = templatedHead ? "" : requestHead("POST", port, url.pathname + url.search, spec.headers);
  const started = performance.now();
  const cpuBefore = process.cpuUsage();
  const deadline = started + spec.seconds * 1000;

  /** One connection's closed loop: the next request leaves when the last answer is read; a lost connection is replaced. */
  const worker = () =>
    new Promise<void>((resolve) => {
      let t0 = 0;
      let inFlight = false;
      let http: RawHttpConnection;
      const next = () => {
        if (performance.now() >= deadline) {
          http.socket.destroy();
          return;
        }
        const i = sequence++;
        const n = String(i);
        const body = templatedBody ? spec.body.replaceAll("{n}", n).replaceAll("{cycle}", cycle[i % Math.max(1, cycle.length)] ?? "") : spec.body;
        const head = templatedHead
          ? requestHead("POST", port, url.pathname + url.search, Object.fromEntries(Object.entries(spec.headers).map(([k, v]) => [k, v.replaceAll("{n}", n)])))
          : fixedHead;
        t0 = performance.now();
        inFlight = true;
        http.send(requestText(head, body));
      };
      const connect = () => {
        let connected = false;
        http = new RawHttpConnection(
          port,
          (answer) => {
            if (answer === null) return; // counted when the connection closes
            inFlight = false;
            status[answer.status] = (status[answer.status] ?? 0) + 1;
            if (answer.status >= 200 && answer.status < 300) latencies.push((performance.now() - t0) * 1000);
            const id = collectAfter !== null && answer.status === 200 ? textAfter(answer.body, collectAfter, 36) : null;
            if (id !== null) collected.push(id);
            next();
          },
          collectAfter !== null,
        );
        http.socket.once("connect", () => {
          connected = true;
          next();
        });
        http.socket.once("close", () => {
          if (inFlight || !connected) errors++;
          inFlight = false;
          if (performance.now() >= deadline) resolve();
          else setTimeout(connect, 10);
        });
      };
      connect();
    });
  await Promise.all(Array.from({ length: spec.connections }, worker));
  const elapsed = (performance.now() - started) / 1000;
  const cpu = process.cpuUsage(cpuBefore);
  latencies.sort((a, b) => a - b);
  const q = (p: number) => (latencies.length === 0 ? NaN : latencies[Math.min(latencies.length - 1, Math.floor(p * latencies.length))]!);
  return {
    label: spec.label,
    requests: latencies.length,
    perSecond: latencies.length / elapsed,
    status,
    errors,
    p50Us: q(0.5),
    p90Us: q(0.9),
    p99Us: q(0.99),
    maxUs: latencies.length === 0 ? NaN : latencies[latencies.length - 1]!,
    generatorCpuUs: latencies.length === 0 ? NaN : (cpu.user + cpu.system) / latencies.length,
    seconds: elapsed,
    collected,
  };
}

/** The same run in a process of its own (the result, collected ids included, comes back on stdout). */
export function runLoadInChild(spec: TLoadSpec): Promise<TLoadResult> {
  return runJsonChild(fileURLToPath(import.meta.url), ["--closed-loop", JSON.stringify(spec)], "load generator");
}

/** Answers that were not 2xx, from a result's count by status. */
export function non2xxCount(status: Readonly<Record<string, number>>): number {
  return Object.entries(status).reduce((n, [code, count]) => (code.startsWith("2") ? n : n + count), 0);
}

const flag = process.argv.indexOf("--closed-loop");
if (flag !== -1) runLoad(JSON.parse(process.argv[flag + 1]!) as TLoadSpec).then(exitWithJson, exitWithError);
