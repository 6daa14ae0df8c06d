import http from "node:http";

/**
 * The gateway benchmark's load generator, run as its own process so it never shares an event
 * loop with a server it measures. Closed loop: `connections` workers, each sending its next
 * request when the last answer is read, over keep-alive sockets. Latency is taken per request
 * with the high-resolution clock (autocannon rounds to whole milliseconds, too coarse for a
 * gateway's added latency on loopback).
 */
export type TLoadSpec = {
  url: string;
  headers: Record<string, string>;
  body: string;
  seconds: number;
  connections: number;
  /** `{n}` in the body or a header value becomes the request's sequence number. */
  label: string;
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
};

function send(agent: http.Agent, url: URL, headers: Record<string, string>, body: string): Promise<number> {
  return new Promise((resolve, reject) => {
    const req = http.request(
      { host: url.hostname, port: url.port, path: url.pathname + url.search, method: "POST", agent, headers: { ...headers, "content-length": Buffer.byteLength(body) } },
      (res) => {
        res.on("data", () => {});
        res.on("end", () => resolve(res.statusCode ?? 0));
        res.on("error", reject);
      },
    );
    req.on("error", reject);
    req.end(body);
  });
}

export async function runLoad(spec: TLoadSpec): Promise<TLoadResult> {
  const url = new URL(spec.url);
  const agent = new http.Agent({ keepAlive: true, maxSockets: spec.connections });
  const latencies: number[] = [];
  const status: Record<string, number> = {};
  let errors = 0;
  let sequence = 0;
  const templated = spec.body.includes("{n}") || Object.values(spec.headers).some((v) => v.includes("{n}"));
  const deadline = performance.now() + spec.seconds * 1000;
  const started = performance.now();

  async function worker(): Promise<void> {
    while (performance.now() < deadline) {
      const n = String(sequence++);
      const body = templated ? spec.body.replaceAll("{n}", n) : spec.body;
      const headers = templated ? Object.fromEntries(Object.entries(spec.headers).map(([k, v]) => [k, v.replaceAll("{n}", n)])) : spec.headers;
      const t0 = performance.now();
      try {
        const code = await send(agent, url, headers, body);
        status[code] = (status[code] ?? 0) + 1;
        if (code >= 200 && code < 300) latencies.push((performance.now() - t0) * 1000);
      } catch {
        errors++;
      }
    }
  }
  await Promise.all(Array.from({ length: spec.connections }, worker));
  const elapsed = (performance.now() - started) / 1000;
  agent.destroy();
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
  };
}
