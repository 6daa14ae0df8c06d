import type { IncomingMessage, ServerResponse } from "node:http";
import { HttpError, sendError } from "./http";

export type TRouteHandler = (req: IncomingMessage, res: ServerResponse, params: Record<string, string>, url: URL) => Promise<void> | void;

export type TRoute = { method: string; path: string; handler: TRouteHandler };

type TCompiled = { method: string; segments: string[]; handler: TRouteHandler };

export const FAST_PATH_PREFIX = "/api/v1/";

/**
 * The data-plane router: owns every path under /api/v1/ (answering JSON 404/405 itself) and
 * leaves the rest to Next. Routes are matched by segment; `:name` segments become params.
 */
export function createFastPath(routes: TRoute[]): (req: IncomingMessage, res: ServerResponse) => boolean {
  const compiled: TCompiled[] = routes.map((r) => ({ method: r.method, segments: r.path.split("/").filter(Boolean), handler: r.handler }));
  return (req, res) => {
    const rawUrl = req.url ?? "/";
    if (!rawUrl.startsWith(FAST_PATH_PREFIX)) return false;
    const url = new URL(rawUrl, "http://localhost");
    const segments = url.pathname.split("/").filter(Boolean);
    let pathMatched = false;
    for (const route of compiled) {
      const params = matchSegments(route.segments, segments);
      if (!params) continue;
      pathMatched = true;
      if (route.method !== req.method) continue;
      Promise.resolve()
        .then(() => route.handler(req, res, params, url))
        .catch((err) => {
          if (!res.headersSent) sendError(res, err);
          else res.destroy();
        });
      return true;
    }
    sendError(
      res,
      pathMatched
        ? new HttpError(405, "method_not_allowed", `${req.method} is not allowed on ${url.pathname}`)
        : new HttpError(404, "not_found", `no data-plane endpoint at ${url.pathname}`),
    );
    return true;
  };
}

function matchSegments(pattern: string[], actual: string[]): Record<string, string> | null {
  if (pattern.length !== actual.length) return null;
  const params: Record<string, string> = {};
  for (let i = 0; i < pattern.length; i++) {
    const p = pattern[i]!;
    const a = actual[i]!;
    if (p.startsWith(":")) {
      try {
        params[p.slice(1)] = decodeURIComponent(a);
      } catch {
        return null;
      }
    } else if (p !== a) return null;
  }
  return params;
}
