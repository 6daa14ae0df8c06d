import type { z } from "zod";

export type TFieldError = { path: string; message: string };

/**
 * A refusal the API turns into a JSON error with this status. Thrown inside a transaction it
 * also rolls the transaction back, so a refused change leaves nothing behind.
 */
export class ControlPlaneError extends Error {
  constructor(
    readonly status: 400 | 401 | 403 | 404 | 409 | 422 | 429 | 503,
    readonly code: string,
    message: string,
    readonly fields: TFieldError[] = [],
    /** 429 and 503: when to try again, sent as Retry-After. */
    readonly retryAfterSeconds?: number,
  ) {
    super(message);
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

export const invalid = (fields: TFieldError[], message = "the request has invalid fields") =>
  new ControlPlaneError(422, "invalid", message, fields);

export function zodFields(error: z.ZodError): TFieldError[] {
  return error.issues.map((i) => ({ path: i.path.map(String).join("."), message: i.message }));
}

/** Parses with a zod schema; every field error is reported, not just the first. */
export function parseInput<T extends z.ZodType>(schema: T, input: unknown): z.output<T> {
  const result = schema.safeParse(input);
  if (!result.success) throw invalid(zodFields(result.error));
  return result.data;
}

/** Postgres unique violations surface from Prisma as P2002. */
export function isUniqueViolation(err: unknown): boolean {
  return typeof err === "object" && err !== null && (err as { code?: unknown }).code === "P2002";
}
