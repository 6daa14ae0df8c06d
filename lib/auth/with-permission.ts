import { type PrismaClient, getPrisma } from "../db";
import type { TActor } from "../audit";
import { ContractError, errorResponse, malformed, type TErrorCode, type TFieldError, type TStatusOf } from "../http";
import { busy, isTransactionStartTimeout } from "../errors";
import { clientIpOf } from "./client-ip";
import { rolesGrant, type TPermission } from "./permissions";
import { registerHandler } from "./route-registry";
import { isSameOrigin } from "./same-origin";
import { SESSION_COOKIE, readCookie, resolveSession, type TUserPrincipal } from "./session";

export type TRouteContext = {
  req: Request;
  prisma: PrismaClient;
  principal: TUserPrincipal;
  actor: TActor;
  params: Record<string, string>;
};

type TNextContext = { params: Promise<Record<string, string | string[] | undefined>> };

const SAFE_METHODS = new Set(["GET", "HEAD", "OPTIONS"]);

/** A refusal in the error contract's shape (docs/errors.md), its status from its code. */
export function refusal<C extends TErrorCode>(
  code: C,
  message: string,
  fields?: TFieldError[],
  opts?: { retryAfterSeconds?: number; status?: TStatusOf<C> },
): Response {
  return errorResponse(new ContractError(code, message, fields, opts));
}

/** A refusal as the API answers it; a transaction that could not start in time is a 503 to retry, not a 500. */
export function refusalResponse(err: unknown): Response | null {
  const e = isTransactionStartTimeout(err) ? busy() : err;
  return e instanceof ContractError ? errorResponse(e) : null;
}

export function actorOf(principal: TUserPrincipal, headers: Headers): TActor {
  return { userId: principal.userId, label: principal.email, ip: clientIpOf(headers) };
}

async function flatParams(ctx: TNextContext | undefined): Promise<Record<string, string>> {
  const raw = ctx ? await ctx.params : {};
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(raw ?? {})) if (typeof v === "string") out[k] = v;
  return out;
}

/**
 * Declares a control-plane route handler's permission up front. Order matters: CSRF, then
 * authentication (401), then authorisation (403), all before the handler can read the body
 * or touch the database, so a refused call changes nothing.
 */
export function withPermission(permission: TPermission, handler: (ctx: TRouteContext) => Promise<Response>) {
  const route = async (req: Request, nextCtx: TNextContext): Promise<Response> => {
    if (!SAFE_METHODS.has(req.method) && !isSameOrigin(req.headers)) {
      return refusal("cross_origin", "state-changing requests must carry this site's Origin header");
    }
    const prisma = getPrisma();
    const principal = await resolveSession(prisma, readCookie(req.headers.get("cookie"), SESSION_COOKIE));
    if (!principal) return refusal("unauthenticated", "sign in first");
    if (!rolesGrant(principal.roles, permission)) {
      return refusal("forbidden", `your roles (${principal.roles.join(", ") || "none"}) do not grant ${permission}`);
    }
    try {
      return await handler({ req, prisma, principal, actor: actorOf(principal, req.headers), params: await flatParams(nextCtx) });
    } catch (err) {
      const refused = refusalResponse(err);
      if (refused) return refused;
      const idRefusal = malformedIdRefusal(err, await flatParams(nextCtx));
      if (idRefusal) return idRefusal;
      throw err;
    }
  };
  registerHandler(route, permission, "route");
  return route;
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
const WELL_FORMED_ID = (v: string) => UUID.test(v) || /^\d{1,19}$/.test(v);

/**
 * The database refused a lookup (Prisma's request errors P2xxx, or PostgreSQL's data
 * exceptions 22xxx such as a malformed uuid or a NUL byte) while a path parameter is not a
 * well-formed id. Handlers look records up by the id in their path without checking its shape
 * first, so this is a lookup of nothing, not a server error.
 */
function malformedIdRefusal(err: unknown, params: Record<string, string>): Response | null {
  const e = err as { code?: unknown; meta?: { code?: unknown; driverAdapterError?: { cause?: { originalCode?: unknown } } } } | null;
  if (!e) return null;
  const code = typeof e.code === "string" ? e.code : "";
  const original = e.meta?.driverAdapterError?.cause?.originalCode;
  const dbCode = typeof e.meta?.code === "string" ? e.meta.code : typeof original === "string" ? original : "";
  if (!/^P2\d{3}$/.test(code) && !/^22/.test(code) && !/^22/.test(dbCode)) return null;
  // A numeric id is well formed for routes keyed by a number, but not where the column is a
  // uuid: PostgreSQL's invalid text representation (22P02, which Prisma 7 reports as P2007 with
  // the driver's original code) or Prisma's inconsistent column data (P2023) says so.
  const notUuid = code === "P2023" || code === "22P02" || dbCode === "22P02";
  const bad = Object.entries(params).find(([, v]) => !WELL_FORMED_ID(v)) ?? (notUuid ? Object.entries(params).find(([, v]) => !UUID.test(v)) : undefined);
  if (!bad) return null;
  const [name, value] = bad;
  const shown = value.length > 60 ? `${value.slice(0, 60)}…` : value;
  return refusal("not_found", `nothing has ${name} ${JSON.stringify(shown)}: ${name} must be an id (a UUID)`, [
    { path: name, message: "must be an id (a UUID)" },
  ]);
}

/** Reads a JSON body; malformed JSON is a 400 before any validation runs. */
export async function readJson(req: Request): Promise<unknown> {
  const text = await req.text();
  if (text.trim() === "") return {};
  try {
    return JSON.parse(text);
  } catch {
    throw malformed([{ path: "", message: "not valid JSON" }], "the request body is not valid JSON");
  }
}

export function queryOf(req: Request): Record<string, string> {
  return Object.fromEntries(new URL(req.url).searchParams.entries());
}
