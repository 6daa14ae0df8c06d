import { z } from "zod";

/**
 * The one error contract of every edge (data plane, control plane, console routes, auth routes,
 * server actions, execute): see docs/errors.md. Every refusal is built here, so the shape cannot
 * drift between edges.
 */

/** One offending field, by dotted path ("" for the body as a whole). */
export type TFieldError = { path: string; message: string };

export type TErrorDetail = { code: TErrorCode; message: string; fields?: TFieldError[] };

export type TErrorBody = { error: TErrorDetail };

/**
 * Every code a refusal may carry, with its HTTP status: one closed list, so a new code is declared
 * here (and documented in docs/errors.md, which test/error-codes.test.ts holds equal to this table)
 * before any edge can answer it. `also`: the other statuses a code is answered with, where one
 * code covers two situations that callers tell apart by status.
 */
export const ERROR_CODES = {
  malformed: { status: 400, when: "the request cannot be read as its declared shape (not JSON, too deep, a repeated key, its zod schema rejects it)" },
  unauthenticated: { status: 401, when: "no valid session or API key" },
  invalid_credentials: { status: 401, also: [403], when: "a wrong email or password (403: a wrong current password while signed in)" },
  forbidden: { status: 403, when: "the session's roles or the key's scopes do not grant this" },
  cross_origin: { status: 403, when: "a state-changing request without this site's Origin" },
  four_eyes: { status: 403, when: "the author of a change may not also approve it" },
  own_account: { status: 403, when: "an admin may not disable or reset their own account here" },
  own_roles: { status: 403, when: "an admin may not change their own roles" },
  privileged_reset: { status: 403, when: "another admin's password is reset by that admin, not by a peer" },
  not_found: { status: 404, when: "the thing the URL names does not exist" },
  decision_not_found: { status: 404, when: "GET /api/v1/decisions/:id: no decision with that id" },
  unknown_decision: { status: 404, when: "an outcome names a decision that does not exist" },
  unknown_job: { status: 404, when: "an execute job id that does not exist" },
  unknown_provider: { status: 404, when: "a provider key that is not in the catalogue" },
  not_demo_mode: { status: 404, when: "a demo-only route outside demo mode" },
  method_not_allowed: { status: 405, when: "the path exists, the method does not" },
  request_timeout: { status: 408, when: "headers or body not received within the server's deadlines" },
  conflict: { status: 409, when: "the target changed since the caller read it" },
  invalid_state: { status: 409, when: "the target's state forbids the change now" },
  policy_conflict: { status: 409, when: "another activation moved the operation's policy pointer first" },
  stale_change: { status: 409, when: "a held catalogue change whose target has changed since" },
  needs_compliance_approval: { status: 409, when: "a gate or regional change waits for a compliance approval" },
  already_active: { status: 409, when: "the version is already the active one" },
  already_ended: { status: 409, when: "the override or fault has already ended" },
  already_exists: { status: 409, when: "a key that is taken" },
  already_resolved: { status: 409, when: "the held change was already approved or rejected" },
  already_reviewed: { status: 409, when: "this reviewer already reviewed this version" },
  already_revoked: { status: 409, when: "the API key is already revoked" },
  channel_exists: { status: 409, when: "a notification channel name that is taken" },
  declaration_in_use: { status: 409, when: "a region or certification still named by a provider, operation, region, factor list or override" },
  email_taken: { status: 409, when: "a user with this email exists" },
  grant_not_pending: { status: 409, when: "the role grant was already confirmed or withdrawn" },
  last_admin: { status: 409, when: "the change would leave no enabled admin" },
  never_active: { status: 409, when: "a rollback to a version that never routed traffic" },
  operation_in_use: { status: 409, when: "the operation still has factor lists or traffic" },
  provider_in_use: { status: 409, when: "the provider is still named by a factor list or override" },
  override_exists: { status: 409, when: "an equal override is already active" },
  outcome_limit: { status: 409, when: "the decision already has the most outcomes it takes for that provider" },
  length_required: { status: 411, when: "a body without a Content-Length" },
  payload_too_large: { status: 413, when: "the body is larger than the edge accepts" },
  too_many_members: { status: 413, when: "the JSON body holds more keys and array elements than the edge accepts" },
  batch_too_large: { status: 413, when: "an outcomes batch with more items than accepted" },
  unsupported_media_type: { status: 415, when: "a body that is not application/json" },
  teapot: { status: 418, when: "only thrown by the router's own test" },
  invalid: { status: 422, when: "well formed, but semantically wrong: names something unknown, breaks a rule across fields" },
  idempotency_key_reused: { status: 422, when: "a requestId or Idempotency-Key reused for another request" },
  context_window_exceeded: { status: 422, when: "the input is too large for every provider's context window" },
  invalid_input: { status: 422, when: "a provider template needs an input field the request lacks" },
  region_not_served: { status: 422, when: "a fault for a region the provider does not serve" },
  unknown_operation: { status: 422, when: "a local decision names an operation this instance does not route" },
  out_of_range: { status: 422, when: "a local decision's id is outside the accepted time range" },
  rate_limited: { status: 429, when: "the API key's rate limit; with Retry-After" },
  throttled: { status: 429, when: "too many attempts (sign-in, password checks); with Retry-After" },
  sign_in_busy: { status: 429, when: "sign-in is shedding load; with Retry-After" },
  headers_too_large: { status: 431, when: "request headers larger than the server accepts" },
  internal: { status: 500, when: "a fault of the server; never carries details" },
  provider_rejected: { status: 502, when: "execute: the provider refused the request; not retried elsewhere" },
  all_attempts_failed: { status: 503, when: "execute: every eligible provider failed" },
  no_callable_provider: { status: 503, when: "execute: no eligible provider could be called" },
  attempts_exhausted: { status: 503, when: "execute: the operation's attempt limit was reached" },
  retry_budget_exhausted: { status: 503, when: "execute: the operation's retry budget is spent" },
  capacity_exhausted: { status: 503, when: "execute: no provider can take the request now; with Retry-After" },
  stream_interrupted: { status: 503, when: "execute: a stream failed after it started" },
  busy: { status: 503, also: [409], when: "the database is busy, with Retry-After (409: an evaluation or what-if is already running)" },
  database_unavailable: { status: 503, when: "the database cannot be reached; with Retry-After" },
  decision_log_unavailable: { status: 503, when: "the decision log cannot take writes; with Retry-After" },
  spool_full: { status: 503, when: "the local spool for an unreachable database is full; with Retry-After" },
  auth_unavailable: { status: 503, when: "API keys cannot be checked right now; with Retry-After" },
  starting: { status: 503, when: "the server is still starting; with Retry-After" },
  unavailable: { status: 503, when: "the console gate cannot check the session now; with Retry-After" },
  deadline_exceeded: { status: 504, when: "execute: the operation's deadline passed" },
} as const satisfies Record<string, { status: number; also?: readonly number[]; when: string }>;

export type TErrorCode = keyof typeof ERROR_CODES;

/** The statuses a code may be answered with: its own, and those it lists in `also`. */
export type TStatusOf<C extends TErrorCode> = (typeof ERROR_CODES)[C] extends { status: infer S; also: readonly (infer A)[] }
  ? S | A
  : (typeof ERROR_CODES)[C]["status"];

/** The contract as zod schemas, for the OpenAPI document and for per-item results that carry an error. */
export const ZFieldError = z.object({ path: z.string().describe("The offending field, as a dotted path (empty: the body as a whole)"), message: z.string() });
export const ZErrorDetail = z.object({
  code: z
    .enum(Object.keys(ERROR_CODES) as [TErrorCode, ...TErrorCode[]])
    .describe("Machine-readable: malformed (400), invalid (422), not_found, … (docs/errors.md)"),
  message: z.string(),
  fields: z.array(ZFieldError).optional().describe("Each offending field"),
});
export const ZErrorBody = z.object({ error: ZErrorDetail });

export function isErrorCode(code: string): code is TErrorCode {
  return Object.hasOwn(ERROR_CODES, code);
}

/** The body of a refusal; `fields` only when there are some. */
export function errorBody(code: TErrorCode, message: string, fields?: readonly TFieldError[]): TErrorBody {
  return { error: fields && fields.length > 0 ? { code, message, fields: [...fields] } : { code, message } };
}

/**
 * The one refusal: thrown by server code and turned into a response by its edge (sendError on the
 * data plane, errorResponse on Next's routes, withActionPermission for server actions). Its status
 * comes from the code (ERROR_CODES). `fields` may be one field's path: it is named with the message.
 */
export class ContractError<C extends TErrorCode = TErrorCode> extends Error {
  readonly status: number;
  readonly fields: TFieldError[];
  /** 429 and 503: when to try again, sent as Retry-After (whole seconds, at least 1). */
  readonly retryAfterSeconds?: number;

  constructor(
    readonly code: C,
    message: string,
    fields: string | readonly TFieldError[] = [],
    opts: { retryAfterSeconds?: number; status?: TStatusOf<C> } = {},
  ) {
    super(message);
    this.name = "ContractError";
    this.status = (opts.status as number | undefined) ?? ERROR_CODES[code].status;
    this.fields = typeof fields === "string" ? [{ path: fields, message }] : [...fields];
    this.retryAfterSeconds = opts.retryAfterSeconds;
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
  return new ContractError("malformed", message ?? describe(fields, "the request is malformed"), fields);
}

/** 422 `invalid`: well-formed, but semantically wrong (names something unknown, breaks a rule). */
export function invalid(fields: readonly TFieldError[], message?: string): ContractError {
  return new ContractError("invalid", message ?? describe(fields, "the request has invalid fields"), fields);
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
