import { ClickHouseError } from "@clickhouse/client";

/**
 * ClickHouse error codes that mean "not now" rather than "never": the batch is spooled and
 * replayed, as when the server cannot be reached at all.
 */
const TRANSIENT = new Set([
  "159", // TIMEOUT_EXCEEDED
  "202", // TOO_MANY_SIMULTANEOUS_QUERIES
  "241", // MEMORY_LIMIT_EXCEEDED
  "242", // TABLE_IS_READ_ONLY
  "252", // TOO_MANY_PARTS
  "425", // SYSTEM_ERROR
  "999", // KEEPER_EXCEPTION
]);

export function isClickHouseUnavailable(err: unknown): boolean {
  if (!(err instanceof ClickHouseError)) return true;
  return TRANSIENT.has(String(err.code));
}

/**
 * A statement ClickHouse refused for good. It carries a `severity`, as a Postgres server error
 * does, so the decision log treats it as a rejection (fail the sync decides) rather than an outage
 * (postgres-errors.ts: errors the server did not send carry none).
 */
export class ClickHouseRejectedError extends Error {
  readonly severity = "ERROR";
  constructor(override readonly cause: unknown) {
    super(`ClickHouse refused the decision batch: ${(cause as Error).message}`);
  }
}

/** Rethrows a ClickHouse failure in the shape the decision log classifies. */
export function classified(err: unknown): Error {
  if (isClickHouseUnavailable(err)) return err instanceof Error ? err : new Error(String(err));
  return new ClickHouseRejectedError(err);
}
