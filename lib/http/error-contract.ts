import { z } from "zod";

/**
 * The one error contract of every edge (data plane, control plane, console routes, auth routes,
 * server actions, execute): see docs/errors.md. Every refusal is built here, so the shape cannot
 * drift between edges.
 */

/** One offending field, by dotted path ("" for the body as a whole). */
export type TFieldError = { path: string; message: string };

export type TErrorDetail = { code: string; message: string; fields?: TFieldError[] };

export type TErrorBody = { error: TErrorDetail };

/** The contract as zod schemas, for the OpenAPI document and for per-item results that carry an error. */
export const ZFieldError = z.object({ path: z.string().describe("The offending field, as a dotted path (empty: the body as a whole)"), message: z.string() });
export const ZErrorDetail = z.object({
  code: z.string().describe("Machine-readable: malformed (400), invalid (422), not_found, … (docs/errors.md)"),
  message: z.string(),
  fields: z.array(ZFieldError).optional().describe("Each offending field"),
});
export const ZErrorBody = z.object({ error: ZErrorDetail });

/** The body of a refusal; `fields` only when there are some. */
export function errorBody(code: string, message: string, fields?: readonly TFieldError[]): TErrorBody {
  return { error: fields && fields.length > 0 ? { code, message, fields: [...fields] } : { code, message } };
}

/**
 * A refusal with its status, thrown by server code and turned into a response by its edge
 * (sendError on the data plane, refusalResponse on Next's routes, withActionPermission for
 * server actions). HttpError and ControlPlaneError are this, with their historical constructors.
 */
export class ContractError extends Error {
  readonly fields: TFieldError[];

  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
    fields: readonly TFieldError[] = [],
    /** 429 and 503: when to try again, sent as Retry-After (whole seconds, at least 1). */
    readonly retryAfterSeconds?: number,
  ) {
    super(message);
    this.name = "ContractError";
    this.fields = [...fields];
  }

  toBody(): TErrorBody {
    return errorBody(this.code, this.message, this.fields);
  }

  headers(): Record<string, string> {
    return this.retryAfterSeconds === undefined ? {} : { "retry-after": String(Math.max(1, Math.ceil(this.retryAfterSeconds))) };
  }
}

/** "path: message" of the first field, for the top-level message. */
function describe(fields: readonly TFieldError[], fallback: string): string {
  const first = fields[0];
  if (!first) return fallback;
  const more = fields.length > 1 ? ` (and ${fields.length - 1} more)` : "";
  return `${first.path ? `${first.path}: ` : ""}${first.message}${more}`;
}

/** 400 `malformed`: the request cannot be read as its declared shape. */
export function malformed(fields: readonly TFieldError[], message?: string): ContractError {
  return new ContractError(400, "malformed", message ?? describe(fields, "the request is malformed"), fields);
}

/** 422 `invalid`: well-formed, but semantically wrong (names something unknown, breaks a rule). */
export function invalid(fields: readonly TFieldError[], message?: string): ContractError {
  return new ContractError(422, "invalid", message ?? describe(fields, "the request has invalid fields"), fields);
}

/**
 * Every zod issue as a field error; an unknown key is named by its own path. A value that matches
 * no branch of a union is described by the branch it came closest to (fewest issues), so the
 * fields name what is missing rather than only "invalid input" at the union's path.
 */
export function zodFields(error: z.ZodError, prefix: readonly string[] = []): TFieldError[] {
  return issueFields(error.issues, prefix);
}

function issueFields(issues: readonly z.core.$ZodIssue[], prefix: readonly string[]): TFieldError[] {
  const out: TFieldError[] = [];
  for (const i of issues) {
    const base = [...prefix, ...i.path.map(String)];
    if (i.code === "unrecognized_keys") for (const k of i.keys) out.push({ path: [...base, k].join("."), message: i.message });
    else if (i.code === "invalid_union" && i.errors.length > 0) {
      const closest = i.errors.reduce((best, branch) => (branch.length < best.length ? branch : best));
      out.push(...issueFields(closest, base));
    } else out.push({ path: base.join("."), message: i.message });
  }
  return out;
}

/** A zod rejection: 400 `malformed` for a request's shape (the default), 422 `invalid` for a rule checked by a schema. */
export function fromZod(error: z.ZodError, status: 400 | 422 = 400, message?: string, prefix: readonly string[] = []): ContractError {
  const fields = zodFields(error, prefix);
  return status === 400 ? malformed(fields, message) : invalid(fields, message);
}

/** A refusal as a web Response (Next's route handlers). */
export function errorResponse(err: ContractError): Response {
  return Response.json(err.toBody(), { status: err.status, headers: { "cache-control": "no-store", ...err.headers() } });
}
