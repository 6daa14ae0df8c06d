import type { IncomingMessage, ServerResponse } from "node:http";
import type { PrismaClient } from "../db";
import { isSameOrigin, SESSION_COOKIE, readCookie, resolveSession } from "../auth";
import { sendJson } from "../edge";
import { errorBody, type TErrorCode } from "../http";

/**
 * The server's check on every request it hands to Next, before Next renders anything. Next
 * renders a page and its layouts in parallel, so a redirect in the console layout came too
 * late: the page's data was already in the streamed body. Here a console page (HTML or RSC)
 * without a live session gets an empty redirect; a write from another origin, or a body
 * over the limit, is refused before Next reads a byte of it.
 */
export type TConsoleGateOptions = {
  prisma: () => PrismaClient;
  /** Largest request body a control-plane route or server action accepts. */
  maxBodyBytes: number;
  /** Largest body for sign-in (route and server action), which anyone may send. */
  maxAuthBodyBytes: number;
};

const SAFE_METHODS = new Set(["GET", "HEAD", "OPTIONS"]);
/** Route handlers answer 401 themselves (JSON), and static assets hold no data. */
const SELF_AUTHENTICATING = ["/api/", "/_next/"];
// The icons carry no data, and browsers fetch them without the session on the login page too.
const PUBLIC_PAGES = new Set(["/login", "/favicon.ico", "/icon.svg"]);
const AUTH_PATHS = ["/login", "/api/auth/"];
/**
 * Routes a script calls with an API key (withPermissionOrApiKey): a request carrying
 * `Authorization: Bearer` cannot be forged by another site (a browser adds that header to a
 * cross-origin request only after a CORS preflight, which this server never grants), so the
 * same-origin check does not apply to it; the route verifies the key.
 */
const BEARER_ROUTES = new Set(["/api/control/apply"]);
/** A refused body is read and thrown away up to this much, so the refusal is not lost to a TCP reset. */
const DISCARD_BYTES = 8 * 1024 ** 2;
const DISCARD_MS = 3_000;

export function consoleGateOptionsFromEnv(env: NodeJS.ProcessEnv, prisma: () => PrismaClient): TConsoleGateOptions {
  return {
    prisma,
    maxBodyBytes: positiveInt(env.CONTROL_PLANE_MAX_BODY_BYTES, 1024 * 1024, "CONTROL_PLANE_MAX_BODY_BYTES"),
    maxAuthBodyBytes: 16 * 1024,
  };
}

function positiveInt(raw: string | undefined, fallback: number, name: string): number {
  if (raw === undefined || raw === "") return fallback;
  const n = Number(raw);
  if (!Number.isInteger(n) || n <= 0) throw new RangeError(`${name} must be a positive integer, got ${JSON.stringify(raw)}`);
  return n;
}

function pathOf(req: IncomingMessage): string {
  const url = req.url ?? "/";
  const q = url.indexOf("?");
  return q < 0 ? url : url.slice(0, q);
}

function fetchHeaders(req: IncomingMessage): Headers {
  const h = new Headers();
  for (const name of ["origin", "sec-fetch-site", "host", "x-forwarded-host"]) {
    const v = req.headers[name];
    if (typeof v === "string") h.set(name, v);
  }
  return h;
}

/** Where a signed-out visitor is sent: the login page, coming back here afterwards (without Next's RSC cache-buster). */
function loginRedirect(req: IncomingMessage): string {
  const url = new URL(req.url ?? "/", "http://switchyard.invalid");
  url.searchParams.delete("_rsc");
  const back = url.pathname + url.search;
  return back === "/" ? "/login" : `/login?next=${encodeURIComponent(back)}`;
}

/**
 * Answers at once, then keeps reading (and dropping) the refused body, bounded, before the
 * connection closes: closing a socket with unread data makes the kernel reset it, and the reset
 * can destroy the answer before the client reads it.
 */
function refuseBody(req: IncomingMessage, res: ServerResponse, status: number, code: TErrorCode, message: string): void {
  const payload = JSON.stringify(errorBody(code, message));
  res.writeHead(status, {
    "content-type": "application/json; charset=utf-8",
    "content-length": Buffer.byteLength(payload),
    "cache-control": "no-store",
    connection: "close",
  });
  res.write(payload);
  let seen = 0;
  let closed = false;
  const close = () => {
    if (closed) return;
    closed = true;
    clearTimeout(timer);
    res.end();
  };
  const timer = setTimeout(close, DISCARD_MS);
  req.on("data", (chunk: Buffer) => {
    seen += chunk.length;
    if (seen > DISCARD_BYTES) close();
  });
  req.once("end", close);
  req.once("error", close);
  req.resume();
}

/**
 * True when the request may go on to Next; otherwise it has been answered. Never throws: a
 * database that cannot resolve the session answers 503, not a rendered page.
 */
export async function gateConsoleRequest(req: IncomingMessage, res: ServerResponse, opts: TConsoleGateOptions): Promise<boolean> {
  const method = req.method ?? "GET";
  const path = pathOf(req);
  if (!SAFE_METHODS.has(method)) {
    const bearer = BEARER_ROUTES.has(path) && /^bearer\s+sy_/i.test(req.headers.authorization ?? "");
    if (!bearer && !isSameOrigin(fetchHeaders(req))) {
      refuseBody(req, res, 403, "cross_origin", "state-changing requests must carry this site's Origin header (and Sec-Fetch-Site: same-origin when sent)");
      return false;
    }
    const limit = AUTH_PATHS.some((p) => path === p || path.startsWith(p)) ? opts.maxAuthBodyBytes : opts.maxBodyBytes;
    const declared = req.headers["content-length"];
    if (declared === undefined && req.headers["transfer-encoding"] !== undefined) {
      // node:http holds a request to its declared length, so a declared bound is a streamed bound.
      refuseBody(req, res, 411, "length_required", "send the body with a Content-Length header");
      return false;
    }
    if (declared !== undefined && Number(declared) > limit) {
      refuseBody(req, res, 413, "payload_too_large", `body is ${declared} bytes; the limit is ${limit}`);
      return false;
    }
  }
  if (PUBLIC_PAGES.has(path) || SELF_AUTHENTICATING.some((p) => path.startsWith(p))) return true;
  let signedIn: boolean;
  try {
    signedIn = (await resolveSession(opts.prisma(), readCookie(req.headers.cookie ?? null, SESSION_COOKIE))) !== null;
  } catch {
    sendJson(res, 503, errorBody("unavailable", "cannot check the session right now"), { "retry-after": "1" });
    return false;
  }
  if (signedIn) return true;
  if (SAFE_METHODS.has(method)) {
    res.writeHead(307, { location: loginRedirect(req), "cache-control": "no-store", "content-length": "0" });
    res.end();
  } else {
    refuseBody(req, res, 401, "unauthenticated", "sign in first");
  }
  return false;
}
