import http from "node:http";
import type { AddressInfo } from "node:net";

export type TProviderBehaviour = {
  /** Share of calls that fail (0..1). */
  failureRate: number;
  /** How long a call takes, successful or not. */
  latencyMs: number;
};

const HEALTHY: TProviderBehaviour = { failureRate: 0, latencyMs: 5 };

/**
 * Third-party providers on 127.0.0.1: `POST /<provider>` answers 200 or, for a degraded
 * provider, 503 for a share of calls, after the provider's latency. The load generator calls the
 * provider each decision selected and reports what happened as that decision's outcome, so the
 * controller sees real outcomes of real calls. Deterministic: every k-th call fails.
 */
export async function startMockProviders(): Promise<{
  url: string;
  set(provider: string, behaviour: Partial<TProviderBehaviour>): void;
  close(): Promise<void>;
}> {
  const behaviours = new Map<string, TProviderBehaviour>();
  const calls = new Map<string, number>();
  const server = http.createServer((req, res) => {
    const provider = decodeURIComponent((req.url ?? "/").slice(1));
    const b = behaviours.get(provider) ?? HEALTHY;
    const n = (calls.get(provider) ?? 0) + 1;
    calls.set(provider, n);
    // Fails exactly failureRate of calls, spread evenly, without a random source.
    const fail = Math.floor(n * b.failureRate) > Math.floor((n - 1) * b.failureRate);
    req.resume();
    setTimeout(() => {
      res.writeHead(fail ? 503 : 200, { "content-type": "application/json" });
      res.end(fail ? '{"error":"unavailable"}' : '{"ok":true}');
    }, b.latencyMs);
  });
  server.keepAliveTimeout = 65_000;
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const port = (server.address() as AddressInfo).port;
  return {
    url: `http://127.0.0.1:${port}`,
    set(provider, behaviour) {
      behaviours.set(provider, { ...(behaviours.get(provider) ?? HEALTHY), ...behaviour });
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
