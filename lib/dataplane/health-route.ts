import type { IncomingMessage } from "node:http";
import { type TAuthenticator, sendJson, type TRouteHandler } from "../edge";

/**
 * GET /api/v1/health in two depths. Without credentials, only `{status}` (ok or degraded, always
 * 200 so a load balancer keeps a degraded instance that still routes): enough for a health check,
 * and nothing about operations, providers, breakers or files. With a key holding the `metrics`
 * scope (or keyless in the embedded demo), the whole report. A key that is wrong or lacks the
 * scope is refused like on any other route, so a misconfigured scraper is noticed.
 */
export function createHealthRoute(opts: {
  authenticate: TAuthenticator;
  /** The instance's status and the whole report, computed together (the status needs the database probe anyway). */
  report: () => Promise<{ status: "ok" | "degraded" } & Record<string, unknown>>;
}): TRouteHandler {
  return async (req: IncomingMessage, res) => {
    const auth = await opts.authenticate(req, "metrics");
    if (!auth.ok && req.headers.authorization !== undefined) {
      sendJson(res, auth.status, auth.body, auth.headers);
      return;
    }
    const report = await opts.report();
    sendJson(res, 200, auth.ok ? report : { status: report.status });
  };
}
