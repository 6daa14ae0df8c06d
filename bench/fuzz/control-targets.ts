import fc from "fast-check";
import { SESSION_COOKIE } from "../../lib/auth/session";
import { STATE_CHANGING, type TControlRoute } from "./control-routes";
import { anyJson, KNOWN_FIELDS, type TFuzzEndpoint, type TFuzzRequest } from "./fuzz-cases";
import type { TObserved } from "./fuzz-run";

/** Stands for the current admin session in generated headers; swapped in at send time (a fuzzed sign-out may end the session). */
export const SESSION_PLACEHOLDER = "\u0000session\u0000";

/** Routes that answer without a session by design. */
const PUBLIC_ROUTES = new Set(["/api/auth/login", "/api/auth/logout"]);

export type TControlFixture = {
  origin: string;
  /** Returns a valid admin session token, minting a new one if the last was revoked. */
  adminToken: () => Promise<string>;
};

function badCredentials(origin: string): fc.Arbitrary<Array<[string, string]>> {
  const admin = `${SESSION_COOKIE}=${SESSION_PLACEHOLDER}`;
  return fc.constantFrom<Array<[string, string]>>(
    [],
    [["Origin", origin]],
    [
      ["Cookie", `${SESSION_COOKIE}=not-a-session`],
      ["Origin", origin],
    ],
    [
      ["Cookie", `${SESSION_COOKIE}=%zz%E0%A4%A`],
      ["Origin", origin],
    ],
    [
      ["Cookie", `${SESSION_COOKIE}=`],
      ["Origin", origin],
    ],
    [
      ["Cookie", `other=1; ${SESSION_COOKIE}`],
      ["Origin", origin],
    ],
    [["Cookie", admin]],
    [
      ["Cookie", admin],
      ["Origin", "https://evil.example"],
    ],
    [
      ["Cookie", admin],
      ["Origin", "null"],
    ],
    [
      ["Cookie", admin],
      ["Origin", `${origin}.evil.example`],
    ],
    [
      ["Cookie", admin],
      ["Origin", "not a url"],
    ],
    [
      ["Cookie", admin],
      ["Origin", origin],
      ["Sec-Fetch-Site", "cross-site"],
    ],
    [
      ["Cookie", admin],
      ["Origin", origin],
      ["Sec-Fetch-Site", "same-site"],
    ],
  );
}

export function controlEndpoints(routes: readonly TControlRoute[], f: Pick<TControlFixture, "origin">): TFuzzEndpoint[] {
  return routes
    .filter((r) => r.method !== "HEAD" && r.method !== "OPTIONS")
    .map((r) => ({
      method: r.method,
      path: r.path,
      body: STATE_CHANGING.has(r.method) ? fc.dictionary(fc.constantFrom(...KNOWN_FIELDS), anyJson, { maxKeys: 6 }) : undefined,
      goodHeaders: [
        ["Cookie", `${SESSION_COOKIE}=${SESSION_PLACEHOLDER}`],
        ["Origin", f.origin],
      ],
      badAuth: badCredentials(f.origin),
      // Next answers another method with 405 before any handler runs.
      exclude: ["wrong_method"],
    }));
}

function header(req: TFuzzRequest, name: string): string | undefined {
  const v = req.headers.find(([n]) => n.toLowerCase() === name)?.[1];
  return v === undefined ? undefined : v.toString();
}

/** A refused call is expected when credentials or the same-origin proof are missing. */
export function controlMustRefuse(req: TFuzzRequest, origin: string): boolean {
  if (req.category !== "bad_auth") return false;
  const path = req.target.split("?")[0]!;
  const site = header(req, "sec-fetch-site");
  const sameOrigin = header(req, "origin") === origin && (site === undefined || site === "same-origin");
  const hasSession = header(req, "cookie") === `${SESSION_COOKIE}=${SESSION_PLACEHOLDER}`;
  return (STATE_CHANGING.has(req.method) && !sameOrigin) || (!PUBLIC_ROUTES.has(path) && !hasSession);
}

/** A failed sign-in is refused and still recorded in the audit log, on purpose. */
export function controlIntendedWrites(req: TFuzzRequest, status: number | null): readonly string[] {
  return req.target.split("?")[0] === "/api/auth/login" && status === 401 ? ["audit_entry"] : [];
}

function matchParams(template: string, path: string): Record<string, string> | null {
  const t = template.split("/");
  const p = path.split("/");
  if (t.length !== p.length) return null;
  const params: Record<string, string> = {};
  for (let i = 0; i < t.length; i++) {
    const m = /^\{(\w+)\}$/.exec(t[i]!);
    if (m) {
      if (p[i] === "") return null;
      try {
        params[m[1]!] = decodeURIComponent(p[i]!);
      } catch {
        params[m[1]!] = p[i]!;
      }
    } else if (t[i] !== p[i]) return null;
  }
  return params;
}

/**
 * Calls a route handler in-process the way Next would: a Request with the fuzzed method,
 * headers and body, and the path parameters Next would decode. Cases Next itself answers
 * (another method, a path no route matches) and ones a Request cannot carry are skipped; a
 * handler that throws is what Next turns into a 500.
 */
export async function sendToControlRoute(route: TControlRoute, req: TFuzzRequest, f: TControlFixture): Promise<TObserved> {
  if (req.method !== route.method) return { skipped: "not_routed", detail: `Next answers ${req.method} on ${route.path} with 405` };
  const [path, query] = [req.target.split("?")[0]!, req.target.includes("?") ? req.target.slice(req.target.indexOf("?")) : ""];
  const params = matchParams(route.path, path);
  if (!params) return { skipped: "not_routed", detail: `no route for ${path}` };
  const token = await f.adminToken();
  let request: Request;
  try {
    const headers = new Headers();
    for (const [name, value] of req.headers)
      headers.append(name, (typeof value === "string" ? value : value.toString("latin1")).replace(SESSION_PLACEHOLDER, token));
    headers.set("host", new URL(f.origin).host);
    request = new Request(`${f.origin}${path}${query}`, { method: req.method, headers, ...(req.body ? { body: new Uint8Array(req.body) } : {}) });
  } catch (err) {
    return { skipped: "unsendable", detail: (err as Error).message };
  }
  try {
    const res = await route.handler(request, { params: Promise.resolve(params) });
    return { ok: true, status: res.status, contentType: res.headers.get("content-type") ?? "", body: res.status === 204 ? "" : await res.text() };
  } catch (err) {
    return {
      ok: true,
      status: 500,
      contentType: "text/plain",
      body: `handler threw: ${err instanceof Error ? (err.stack ?? err.message).split("\n").slice(0, 3).join(" | ") : String(err)}`,
    };
  }
}
