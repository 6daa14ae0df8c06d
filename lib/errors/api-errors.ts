import type { z } from "zod";
import { ContractError, fromZod, malformed } from "../http";

// The one error type and its helpers live in lib/http (error-contract.ts); these are the control
// plane's database-facing refusals built on it.
export { ContractError, invalid, malformed, zodFields, type TFieldError } from "../http";

/**
 * Prisma could not start an interactive transaction in time (P2028: every pooled connection
 * busy past maxWait). That is load, not a fault in the request: the caller should retry.
 */
export function isTransactionStartTimeout(err: unknown): boolean {
  return typeof err === "object" && err !== null && (err as { code?: unknown }).code === "P2028";
}

export const busy = () => new ContractError("busy", "the database is busy; try again in a moment", [], { retryAfterSeconds: 1 });

export const notFound = (what: string, id: string) => new ContractError("not_found", `${what} ${id} does not exist`);

/**
 * Parses a request's body or query with its zod schema: a rejection is 400 `malformed`, naming
 * every offending field, not just the first.
 */
export function parseInput<T extends z.ZodType>(schema: T, input: unknown): z.output<T> {
  const result = schema.safeParse(input);
  if (!result.success) {
    throw malformed(fromZod(result.error).fields, "the request has malformed fields");
  }
  return result.data;
}

/** Postgres unique violations surface from Prisma as P2002. */
export function isUniqueViolation(err: unknown): boolean {
  return typeof err === "object" && err !== null && (err as { code?: unknown }).code === "P2002";
}
