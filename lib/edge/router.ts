import type { IncomingMessage, ServerResponse } from "node:http";
import { ContractError, sendError } from "./http";

export type TRouteHandler = (req: IncomingMessage, res: ServerResponse, params: Record<string, string>) => Promise<void> | void;

export type TRoute = { method: string; path: string; handler: TRouteHandler };

type TCompiled = { method: string; segments: string[]; handler: TRouteHandler };

export const FAST_PATH_PREFIX = "/api/v1/";

const PLAIN_PATH = /^[A-Za-z0-9_\-/]*$/;

const NO_PARAMS: Record<string, string> = Object.freeze({}) as Record<string, string>;

/** Runs a handler; what it throws or rejects with becomes the JSON error answer (or a reset once the answer has started). */
function run(handler: TRouteHandler, req: IncomingMessage, res: ServerResponse, params: Record<string, string>): void {
  let pending: Promise<void> | void;
  try {
    pending = handler(req, res, params);
  } catch (err) {
    fail(res, err);
    return;
  }
  if (pending) pending.catch((err: unknown) => fail(res, err));
}

function fail(res: ServerResponse, err: unknown): void {
  if (!res.headersSent) sendError(res, err);
  else res.destroy();
}

/**
 * The data-plane router: owns every path under /api/v1/ (answering JSON 404/405 itself) and
 * leaves the rest to Next. Routes are matched by segment; `:name` segments become params. A
 * request for a route without params, spelled exactly (no query, no trailing slash), is found
 * in one map lookup without parsing its URL: decide's and outcomes' calls, the hot ones; a
 * plain path (execute's) is matched without the URL parser either.
 */
export function createFastPath(routes: TRoute[]): (req: IncomingMessage, res: ServerResponse) => boolean {
  const compiled: TCompiled[] = routes.map((r) => ({ method: r.method, segments: r.path.split("/").filter(Boolean), handler: r.handler }));
  const exact = new Map<string, TRouteHandler>();
  for (const r of compiled) {
    const key = `${r.method} /${r.segments.join("/")}`;
    if (!r.segments.some((s) => s.startsWith(":")) && !exact.has(key)) exact.set(key, r.handler);
  }
  return (req, res) => {
    const rawUrl = req.url ?? "/";
    if (!rawUrl.startsWith(FAST_PATH_PREFIX)) return false;
    const direct = exact.get(`${req.method} ${rawUrl}`);
    if (direct !== undefined) {
      run(direct, req, res, NO_PARAMS);
      return true;
    }
    // A plain path (letters, digits, - and _ between slashes) is its own URL pathname: no query,
    // percent-escapes or dot segments to resolve. Anything else goes through the URL parser.
    const pathname = PLAIN_PATH.test(rawUrl) ? rawUrl : new URL(rawUrl, "http://localhost").pathname;
    const segments = pathname.split("/").filter(Boolean);
    let pathMatched = false;
    for (const route of compiled) {
      const params = matchSegments(route.segments, segments);
      if (!params) continue;
      pathMatched = true;
      if (route.method !== req.method) continue;
      run(route.handler, req, res, params);
      return true;
    }
    sendError(
      res,
      pathMatched
        ? new ContractError("method_not_allowed", `${req.method} is not allowed on ${pathname}`)
        : new ContractError("not_found", `no data-plane endpoint at ${pathname}`),
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
