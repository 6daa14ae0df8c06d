import type { z } from "zod";
import { ContractError, fromZod, type TFieldError } from "../http";

export { zodFields, type TFieldError } from "../http";

/**
 * A refusal the API turns into a JSON error with this status (docs/errors.md). Thrown inside a
 * transaction it also rolls the transaction back, so a refused change leaves nothing behind.
 */
export class ControlPlaneError extends ContractError {
  constructor(
    override readonly status: 400 | 401 | 403 | 404 | 409 | 422 | 429 | 503,
    code: string,
    message: string,
    fields: TFieldError[] = [],
    /** 429 and 503: when to try again, sent as Retry-After. */
    retryAfterSeconds?: number,
  ) {
    super(status, code, message, fields, retryAfterSeconds);
    this.name = "ControlPlaneError";
  }
}

/**
 * Prisma could not start an interactive transaction in time (P2028: every pooled connection
 * busy past maxWait). That is load, not a fault in the request: the caller should retry.
 */
export function isTransactionStartTimeout(err: unknown): boolean {
  return typeof err === "object" && err !== null && (err as { code?: unknown }).code === "P2028";
}

export const busy = () => new ControlPlaneError(503, "busy", "the database is busy; try again in a moment", [], 1);

export const notFound = (what: string, id: string) => new ControlPlaneError(404, "not_found", `${what} ${id} does not exist`);

export const invalid = (fields: TFieldError[], message = "the request has invalid fields") => new ControlPlaneError(422, "invalid", message, fields);

export const malformed = (fields: TFieldError[], message = "the request has malformed fields") => new ControlPlaneError(400, "malformed", message, fields);

/**
 * Parses a request's body or query with its zod schema: a rejection is 400 `malformed`, naming
 * every offending field, not just the first.
 */
export function parseInput<T extends z.ZodType>(schema: T, input: unknown): z.output<T> {
  const result = schema.safeParse(input);
  if (!result.success) {
    throw malformed(fromZod(result.error).fields);
  }
  return result.data;
}

/** Postgres unique violations surface from Prisma as P2002. */
export function isUniqueViolation(err: unknown): boolean {
  return typeof err === "object" && err !== null && (err as { code?: unknown }).code === "P2002";
}
